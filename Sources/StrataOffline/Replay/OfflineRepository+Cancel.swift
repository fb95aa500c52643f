extension OfflineRepository {
    /// Sends one queued write (``deliver(_:)``) in a task that ``close()`` cancels, and that the cancellation of
    /// the calling task cancels too.
    ///
    /// A cancelled send ends as ``Delivery/interrupted``: its record stays queued as it was, and a later replay sends
    /// it again with the same idempotency key, so main applies it once even if it took the cancelled one.
    func deliverUnlessClosed(_ record: PendingWrite) async -> Delivery {
        let sending = Task { [weak self] in await self?.deliver(record) ?? .interrupted }
        // Set and checked under the lock `close()` takes: either it sees the send, or the send sees it closed.
        let isClosed = schedule.withLock { schedule -> Bool in
            schedule.cancelSend = { sending.cancel() }
            return schedule.isClosed
        }
        if isClosed { sending.cancel() }
        let outcome = await withTaskCancellationHandler {
            await sending.value
        } onCancel: {
            sending.cancel()
        }
        schedule.withLock { $0.cancelSend = nil }
        return outcome
    }
}
