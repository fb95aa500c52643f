import Strata

/// Runs an actor's async jobs one after another: a job that suspends (on file I/O) holds the lane, and the next
/// waits for it, so an actor's state and its files change in the same order.
///
/// Its waiters are the owning actor's concurrent callers, one each; a caller of ``runUnlessCancelled(isolation:_:)``
/// may leave the queue when its task is cancelled, which happens outside the actor, hence the lock.
final class SerialLane: Sendable {
    private struct State {
        /// Whether a job holds the lane.
        var isBusy = false
        /// The jobs waiting for it, first come first served, by number; each is resumed with whether it got the
        /// lane (`false`: its task was cancelled while it waited).
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        /// The number of the last waiter.
        var lastWaiter: UInt64 = 0
    }

    private let state = Locked(State())

    /// The number of jobs waiting for the lane.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Creates a free lane.
    init() {}

    /// Runs `job` once the lane is free.
    func run<Result>(
        isolation actor: isolated (any Actor)? = #isolation,
        _ job: () async throws -> Result
    ) async rethrows -> Result {
        _ = await acquire(cancellable: false)
        defer { release() }
        return try await job()
    }

    /// Runs `job` once the lane is free; `nil` without running it when the calling task is cancelled before then.
    func runUnlessCancelled<Result>(
        isolation actor: isolated (any Actor)? = #isolation,
        _ job: () async throws -> Result
    ) async rethrows -> Result? {
        guard await acquire(cancellable: true) else { return nil }
        defer { release() }
        return try await job()
    }

    /// Takes the lane, waiting for it when it is busy; whether it was taken (`false` only for a cancellable wait
    /// whose task was cancelled).
    private func acquire(
        isolation actor: isolated (any Actor)? = #isolation,
        cancellable: Bool
    ) async -> Bool {
        let id = state.withLock { state -> UInt64? in
            guard state.isBusy else {
                state.isBusy = true
                return nil
            }
            state.lastWaiter &+= 1
            return state.lastWaiter
        }
        guard let id else { return true }
        let wait = {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // The lane may have been freed since the look above, and the task cancelled: both are seen here,
                // under the lock the job before frees it under and the cancellation handler takes waiters under.
                let answer = self.state.withLock { state -> Bool? in
                    guard state.isBusy else {
                        state.isBusy = true
                        return true
                    }
                    if cancellable, Task.isCancelled { return false }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        }
        guard cancellable else { return await wait() }
        return await withTaskCancellationHandler {
            await wait()
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// Hands the lane to the first waiter without freeing it (no caller arriving meanwhile takes it), or frees it.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard !state.waiters.isEmpty else {
                state.isBusy = false
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
