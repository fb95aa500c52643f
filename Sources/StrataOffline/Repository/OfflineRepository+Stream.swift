import Strata

extension OfflineRepository {
    /// The repository's stream of a query (``Strata/CacheRepository/stream(_:operation:bufferingNewest:)``),
    /// with each value marked ``Strata/RepositoryResponse/isPending`` while a write of its key waits to reach main.
    ///
    /// When the key's last waiting write reaches main, the stream repeats its last value with `isPending`
    /// `false`, so a screen goes from "saving…" to "saved" without reading again. A query that names no single key
    /// is the repository's stream as it is.
    ///
    /// - Parameters:
    ///   - query: Which value; a ``Strata/KeyedQuery`` to see its pending state.
    ///   - operation: How to read; ``Strata/DefaultOperation`` by default.
    ///   - limit: How many undelivered responses to keep; older ones are dropped first.
    public func stream(
        _ query: any Query,
        operation: any RepositoryOperation = DefaultOperation(),
        bufferingNewest limit: Int = 1
    ) -> AsyncStream<RepositoryResponse<Value>> {
        let inner = repository.stream(query, operation: operation, bufferingNewest: limit)
        guard let key = (query as? any KeyedQuery)?.key else { return inner }
        let outbox = outbox
        let (stream, continuation) = AsyncStream.makeStream(
            of: RepositoryResponse<Value>.self,
            bufferingPolicy: .bufferingNewest(max(limit, 1))
        )
        // Registered before the first read, so a change of the pending state is never missed.
        let changes = outbox.changeBroadcaster.changes(forKey: key)
        let task = Task {
            let (events, eventSink) = AsyncStream.makeStream(
                of: RepositoryResponse<Value>?.self,
                // Saturating: a limit of `Int.max` (keep everything) trapped on the `+ 1`.
                bufferingPolicy: .bufferingNewest(Self.incremented(max(limit, 1)))
            )
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await response in inner { eventSink.yield(response) }
                    eventSink.finish()
                }
                // At most one change waits in the buffer: two that arrived while the loop was busy pushed out the
                // newest response (the buffer keeps `limit + 1`), and the stream went back to an older value.
                let changeWaits = Locked(false)
                group.addTask {
                    for await _ in changes {
                        let isFirst = changeWaits.withLock { waits in
                            defer { waits = true }
                            return !waits
                        }
                        if isFirst { eventSink.yield(nil) }
                    }
                }
                // One loop marks and sends, so a response never overtakes the pending state read after it.
                var last: RepositoryResponse<Value>?
                var sentPending: Bool?
                for await event in events {
                    // Every event reads the pending state afresh: a change waiting behind responses that pushed it
                    // out of the buffer is seen here, and the next change is let in.
                    changeWaits.withLock { $0 = false }
                    let isPending = await outbox.isPending(key: key)
                    if let response = event {
                        last = response
                    } else if sentPending == isPending {
                        continue
                    }
                    guard let response = last else { continue }
                    let marked = Self.marking(response, pending: isPending)
                    if case .value = marked { sentPending = isPending }
                    if event == nil, marked.value == nil { continue }
                    continuation.yield(marked)
                }
                group.cancelAll()
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// `response` with its pending state set, when it is a value.
    static func marking(_ response: RepositoryResponse<Value>, pending: Bool) -> RepositoryResponse<Value> {
        guard case .value(let value, let origin, let storedAt, let isStale, _) = response else { return response }
        return .value(value, origin: origin, storedAt: storedAt, isStale: isStale, isPending: pending)
    }
}
