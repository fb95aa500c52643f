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
public final class DownloadFuture<Output: Sendable>: Sendable {
    private let task: Task<Output, any Error>

    /// Starts `operation` now.
    ///
    /// - Parameter operation: The work whose result the future holds.
    public init(_ operation: @escaping @Sendable () async throws -> Output) {
        task = Task { try await operation() }
    }

    /// The output, once the work finishes.
    ///
    /// - Throws: The error the work failed with.
    public var value: Output {
        get async throws { try await task.value }
    }

    /// The output or the error, once the work finishes.
    public var result: Result<Output, any Error> {
        get async { await task.result }
    }

    /// Calls `handler` once with the result when the work finishes (at once if it already has), on any thread.
    ///
    /// - Parameter handler: Receives the output or the error.
    public func onComplete(_ handler: @escaping @Sendable (Result<Output, any Error>) -> Void) {
        let task = self.task
        Task { handler(await task.result) }
    }

    /// Cancels the work; a download not yet finished then fails with ``Strata/StrataError/Code/cancelled``.
    public func cancel() {
        task.cancel()
    }
}
