import Strata

/// A download already running, whose result can be awaited or observed: the Linux-friendly stand-in for
/// the Combine `Future` that the Oracle Content SDK's `download(progress:)` returns.
///
/// Like a Combine `Future`, the work starts when the future is made and runs once, whoever listens.
///
/// ```swift
/// let future = service.download(progress: nil)
/// future.onComplete { result in print(result) }   // a callback, as `sink` would give
/// let file = try await future.value.result        // or await it
/// ```
///
/// Combine does not exist on Linux, and an `AsyncThrowingStream` can be iterated only once; a future can
/// be observed by any number of callbacks and awaits, which is what a `Future` is used for.
///
/// A caller awaiting ``value`` or ``result`` stops waiting when its own task is cancelled (it gets
/// ``Strata/StrataError/Code/cancelled``); the download goes on for every other listener. ``cancel()`` stops the
/// download itself. While it waits, the download runs at least at the caller's priority (where the system can raise a
/// task's priority: Linux, and Apple's systems from version 26).
public final class DownloadFuture<Output: Sendable>: Sendable {
    private let task: Task<Void, Never>
    private let state: Locked<State>

    /// The result once the work finished, and the callers waiting for it.
    private struct State {
        var result: Result<Output, any Error>?
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var lastWaiter: UInt64 = 0
    }

    /// Starts `operation` now.
    ///
    /// - Parameter operation: The work whose result the future holds.
    public init(_ operation: @escaping @Sendable () async throws -> Output) {
        let state = Locked(State())
        self.state = state
        task = Task {
            let result: Result<Output, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            let waiters = state.withLock { state in
                state.result = result
                defer { state.waiters = [:] }
                return state.waiters.values
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// The output, once the work finishes.
    ///
    /// - Throws: The error the work failed with, or ``Strata/StrataError/Code/cancelled`` when the calling task is
    ///   cancelled first (the work goes on).
    public var value: Output {
        get async throws { try await result.get() }
    }

    /// The output or the error, once the work finishes; ``Strata/StrataError/Code/cancelled`` when the calling task
    /// is cancelled first (the work goes on).
    public var result: Result<Output, any Error> {
        get async {
            await waitLiftingTheWork()
            return state.withLock { $0.result } ?? .failure(Self.stoppedWaiting())
        }
    }

    /// Waits for the work to finish, or for the calling task's cancellation, and lends the work the caller's
    /// priority meanwhile, as awaiting its task would: a view waiting at `userInitiated` for a download started at
    /// `utility` raises the download, then and whenever its own priority is raised while it waits.
    private func waitLiftingTheWork() async {
        guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return await waitForTheWork() }
        await withTaskPriorityEscalationHandler {
            // Read once the handler is in place: a raise before it is in this priority, one after in the handler.
            task.escalatePriority(to: Task.currentPriority)
            await waitForTheWork()
        } onPriorityEscalated: { [task] _, raised in
            task.escalatePriority(to: raised)
        }
    }

    /// Waits for the work to finish, or for the calling task's cancellation.
    private func waitForTheWork() async {
        await state.suspend(numbering: \.lastWaiter) { state, id, continuation in
            guard state.result == nil else { return false }
            state.waiters[id] = continuation
            return true
        } removing: { state, id in
            state.waiters.removeValue(forKey: id)
        }
    }

    /// Calls `handler` once with the result when the work finishes (at once if it already has), on any thread.
    ///
    /// - Parameter handler: Receives the output or the error.
    public func onComplete(_ handler: @escaping @Sendable (Result<Output, any Error>) -> Void) {
        Task { handler(await self.result) }
    }

    /// Cancels the work; a download not yet finished then fails with ``Strata/StrataError/Code/cancelled``.
    public func cancel() {
        task.cancel()
    }

    private static func stoppedWaiting() -> StrataError {
        StrataError(.cancelled, "The caller stopped waiting for a download", underlying: CancellationError())
    }
}
