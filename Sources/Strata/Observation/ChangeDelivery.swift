/// The sending end of a stream of ``DataChange``s that keeps only the newest: a stream of every key that loses a
/// change is sent ``DataChange/invalidateAll`` after it.
///
/// A change only names what to read again, so the newer changes of a key stand for its older ones; a change of
/// another key does not. An observer of one key that loses a change still reads its key again after the newest
/// one, but an observer of every key would never hear of the key it lost: the ``DataChange/invalidateAll`` sent
/// after the loss tells it that any entry may have changed. None is sent while one already sent after the change
/// lost waits in the buffer (a ``DataChange/deleteAll`` counts too): a flood costs one in `limit` changes at most.
/// With room for one change, the ``DataChange/invalidateAll`` takes the place of the change just sent; so a stream of
/// every key keeps ``everyKeyLimit`` changes unless told otherwise.
final class ChangeDelivery: Sendable {
    /// How many undelivered changes a stream of every key keeps unless told otherwise: enough for the bursts of a busy
    /// store to reach it key by key.
    static let everyKeyLimit = 64

    /// What sending a change did to the stream's buffer.
    struct Outcome {
        /// How many changes the buffer dropped: the send's, and the ``DataChange/invalidateAll``'s after it.
        let dropped: Int

        /// How many changes wait in the buffer after the send.
        let buffered: Int
    }

    /// The changes sent, counted so that the change a full buffer drops is known: the buffer holds the newest
    /// changes sent and not yet read, so when it drops one it was full, and the change dropped is the one sent
    /// `limit` changes before the newest.
    private struct Sent {
        /// How many changes were sent.
        var count = 0

        /// The number (``count`` when it was sent) of the newest change of every key sent, which stands for every
        /// change before it; `0` when none was.
        var newestReset = 0

        mutating func record(_ change: DataChange) {
            count += 1
            if change.key == nil { newestReset = count }
        }
    }

    /// The stream's continuation: every change goes through ``send(_:)``, which counts it.
    private let continuation: AsyncStream<DataChange>.Continuation

    /// How many undelivered changes the stream keeps.
    let limit: Int

    /// Whether the stream carries the changes of every key: only such a stream counts what it sends.
    private let carriesEveryKey: Bool

    /// The changes sent; its lock also makes a send and its count one step.
    private let sent = Locked(Sent())

    private init(_ continuation: AsyncStream<DataChange>.Continuation, limit: Int, carriesEveryKey: Bool) {
        self.continuation = continuation
        self.limit = limit
        self.carriesEveryKey = carriesEveryKey
    }

    /// Makes a stream that keeps the newest `limit` undelivered changes (at least one), and its sending end.
    ///
    /// - Parameters:
    ///   - limit: How many undelivered changes the stream keeps, older ones dropped first; when `nil`, one for a key
    ///     and ``everyKeyLimit`` for every key.
    ///   - key: The key whose changes the stream carries; `nil` for every key.
    static func makeStream(limit: Int?, forKey key: String?) -> (AsyncStream<DataChange>, ChangeDelivery) {
        let limit = max(limit ?? (key == nil ? everyKeyLimit : 1), 1)
        let (stream, continuation) = AsyncStream.makeStream(
            of: DataChange.self,
            bufferingPolicy: .bufferingNewest(limit)
        )
        return (stream, ChangeDelivery(continuation, limit: limit, carriesEveryKey: key == nil))
    }

    /// Runs `handler` once the stream ends: its consumer was cancelled or dropped it, or ``finish()`` was called.
    func onTermination(_ handler: @escaping @Sendable () -> Void) {
        continuation.onTermination = { _ in handler() }
    }

    /// Ends the stream once its consumer has read the changes it holds.
    func finish() {
        continuation.finish()
    }

    /// Sends `change`; `nil` when the stream has ended.
    @discardableResult
    func send(_ change: DataChange) -> Outcome? {
        // A stream of one key needs no count: the newer changes it keeps stand for those it drops.
        guard carriesEveryKey else { return Self.outcome(of: continuation.yield(change), limit: limit) }
        return sent.withLock { sent -> Outcome? in
            let result = continuation.yield(change)
            sent.record(change)
            guard case .dropped = result, sent.newestReset <= sent.count - limit else {
                return Self.outcome(of: result, limit: limit)
            }
            // What this drops in turn was sent before it.
            let invalidated = continuation.yield(.invalidateAll)
            sent.record(.invalidateAll)
            if case .dropped = invalidated { return Outcome(dropped: 2, buffered: limit) }
            return Outcome(dropped: 1, buffered: limit)
        }
    }

    /// What one yield did to a buffer of `limit` changes; `nil` when the stream has ended.
    private static func outcome(
        of result: AsyncStream<DataChange>.Continuation.YieldResult,
        limit: Int
    ) -> Outcome? {
        switch result {
        case .enqueued(let remaining): Outcome(dropped: 0, buffered: limit - remaining)
        case .dropped: Outcome(dropped: 1, buffered: limit)
        case .terminated: nil
        @unknown default: nil
        }
    }
}
