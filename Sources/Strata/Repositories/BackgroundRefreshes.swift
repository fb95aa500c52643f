/// The background refreshes of a repository: at most one per key, at most a configured number at once, and a
/// way to wait for them all.
///
/// A refresh runs in an unstructured task the repository owns; ``waitForAll()`` returns when none is left, so a
/// test (or an app going to the background) can wait for them instead of sleeping.
final class BackgroundRefreshes: Sendable {
    private struct State {
        var running: [UInt64: Task<Void, Never>] = [:]
        var keys: Set<AnyHashableKey> = []
        var nextID: UInt64 = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// A key of a refresh. `AnyHashable` is not declared `Sendable`; it only ever wraps a `Sendable` key.
    struct AnyHashableKey: Hashable, @unchecked Sendable {
        let key: AnyHashable
    }

    private let state = Locked(State())

    /// The number of refreshes running now.
    var count: Int { state.withLock { $0.running.count } }

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
            // outside the call that started it (`CallContext.outside`): its source calls are not steps of that
            // call, whose outcome (served stale) they would rewrite, and streams hear the value it brings even
            // when a stream's read started it (they ignore what their own re-reads write).
            state.running[id] = Task {
                await CallContext.outside { await work() }
                self.finish(id, key: key)
            }
            return true
        }
    }

    /// Returns when no refresh is running.
    func waitForAll() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if state.running.isEmpty { return true }
                state.waiters.append(waiter)
                return false
            }
            if idle { waiter.resume() }
        }
    }

    private func finish(_ id: UInt64, key: AnyHashableKey?) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running[id] = nil
            if let key { state.keys.remove(key) }
            guard state.running.isEmpty else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
