extension Locked {
    /// Suspends the calling task as a waiter the state records, until the state's owner resumes it or the task is
    /// cancelled: a wait on a hung disk or a write that never ends must not hold a caller that gave up (a request's
    /// deadline, an app's background time).
    ///
    /// The waiter takes the next number of `counter`. `enqueue` runs under the lock and never for a task already
    /// cancelled, so a cancellation handler that ran before the waiter was recorded found nothing to take back; the
    /// task goes on at once when it records nothing. The owner resumes a recorded waiter outside the lock.
    ///
    /// - Parameters:
    ///   - counter: The state's last waiter number.
    ///   - enqueue: Records the continuation under the waiter's number, unless there is nothing to wait for; whether
    ///     it did.
    ///   - dequeue: Takes the waiter of a number back, if it still waits (it is resumed then).
    package func suspend(
        numbering counter: WritableKeyPath<State, UInt64>,
        _ enqueue: (inout State, UInt64, CheckedContinuation<Void, Never>) -> Bool,
        removing dequeue: @escaping @Sendable (inout State, UInt64) -> CheckedContinuation<Void, Never>?
    ) async {
        let id = withLock { state -> UInt64 in
            state[keyPath: counter] &+= 1
            return state[keyPath: counter]
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = withLock { state in !Task.isCancelled && enqueue(&state, id, continuation) }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            withLock { dequeue(&$0, id) }?.resume()
        }
    }
}
