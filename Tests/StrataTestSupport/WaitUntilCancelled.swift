/// Waits until the calling task is cancelled, then throws `CancellationError`: a call (a prompt, a read, a write on
/// its way) that only a cancellation ends.
package func waitUntilCancelled() async throws {
    let (cancelled, keepsWaiting) = AsyncStream<Void>.makeStream()
    for await _ in cancelled {}
    keepsWaiting.finish()
    throw CancellationError()
}
