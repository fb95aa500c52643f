/// The background refreshes of a repository: at most one per key, at most a configured number at once, and a
/// way to wait for them all.
///
/// A refresh runs in an unstructured task the repository owns; ``waitForAll()`` returns when the ones running at
/// the call are done, so a test (or an app going to the background) can wait for them instead of sleeping.
final class BackgroundRefreshes: Sendable {
    /// The number the refreshes' calls carry for the refresh plugins (``PluginCall/attachment``): the refreshes of
    /// two repositories differ.
    let attachment = PluginCall.newAttachment()

    private struct State {
        var running: [UInt64: Task<Void, Never>] = [:]
        var keys: Set<AnyHashableKey> = []
        var nextID: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
    }

    /// A caller of ``waitForAll()``: the refreshes it still waits for.
    private struct Waiter {
        var refreshes: Set<UInt64>
        let continuation: CheckedContinuation<Void, Never>
    }

    /// A key of a refresh. `AnyHashable` is not declared `Sendable`; it only ever wraps a `Sendable` key.
    struct AnyHashableKey: Hashable, @unchecked Sendable {
        let key: AnyHashable
    }

    private let state = Locked(State())

    /// The number of refreshes running now.
    var count: Int { state.withLock { $0.running.count } }

    /// The number of callers of ``waitForAll()`` waiting now.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Starts `work` in the background unless a refresh of `key` is running or `limit` refreshes are.
    ///
    /// - Parameters:
    ///   - key: What identifies the refresh; `nil` for one that is never shared.
    ///   - limit: The most refreshes that may run at once.
    ///   - work: The refresh.
    /// - Returns: Whether the refresh started.
    @discardableResult
    func start(key: AnyHashable?, limit: Int, _ work: @escaping @Sendable () async -> Void) -> Bool {
        let key = key.map(AnyHashableKey.init)
        return state.withLock { state in
            guard state.running.count < limit else { return false }
            if let key {
                guard state.keys.insert(key).inserted else { return false }
            }
            state.nextID &+= 1
            let id = state.nextID
            // The task is registered under the lock before it can finish, so `finish` always finds it. It runs
            // outside the call that started it (`CallContext.leftRunning`): its source calls are not steps of that
            // call, whose outcome (served stale) they would rewrite, streams hear the value it brings even when a
            // stream's read started it (they ignore what their own re-reads write), and its spans are a trace of
            // their own, not children of the call's ended span.
            // The task lets go of `work` (and of the repository it holds) before it tells the waiters: a caller of
            // `waitForAll()` may release the repository then and open its stores' folders again at once.
            let job = Locked(Optional(work))
            state.running[id] = Task {
                await CallContext.leftRunning { await Self.run(taking: job) }
                self.finish(id, key: key)
            }
            return true
        }
    }

    /// Runs the work `job` holds, and lets go of it before returning.
    private static func run(taking job: Locked<(@Sendable () async -> Void)?>) async {
        guard let work = job.withLock({ $0.take() }) else { return }
        await work()
    }

    /// Cancels every refresh running now; each ends as its work sees the cancellation.
    func cancelAll() {
        for task in state.withLock({ Array($0.running.values) }) { task.cancel() }
    }

    /// Returns when every refresh running at the call is done, or when the calling task is cancelled.
    ///
    /// Refreshes started meanwhile are not waited for: under steady traffic some refresh is always running.
    func waitForAll() async {
        await state.suspend(numbering: \.nextWaiter) { state, id, continuation in
            guard !state.running.isEmpty else { return false }
            state.waiters[id] = Waiter(refreshes: Set(state.running.keys), continuation: continuation)
            return true
        } removing: { state, id in
            state.waiters.removeValue(forKey: id)?.continuation
        }
    }

    private func finish(_ id: UInt64, key: AnyHashableKey?) {
        let done = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running[id] = nil
            if let key { state.keys.remove(key) }
            var done: [CheckedContinuation<Void, Never>] = []
            for (waiterID, var waiter) in state.waiters where waiter.refreshes.remove(id) != nil {
                if waiter.refreshes.isEmpty {
                    state.waiters[waiterID] = nil
                    done.append(waiter.continuation)
                } else {
                    state.waiters[waiterID] = waiter
                }
            }
            return done
        }
        for continuation in done { continuation.resume() }
    }
}
