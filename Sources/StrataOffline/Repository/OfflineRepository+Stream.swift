import Foundation
import Strata

extension OfflineRepository {
    /// The repository's stream of a query (``Strata/CacheRepository/stream(_:operation:bufferingNewest:)``),
    /// with each value marked ``Strata/RepositoryResponse/isPending`` while a write of its key waits to reach main.
    ///
    /// While a write of the key waits in the outbox, the stream shows it, as ``get(_:operation:)`` answers: its
    /// value (pending), or ``Strata/StrataError/Code/notFound`` for a delete — never main's older value, which a read
    /// the stream makes meanwhile finds.
    ///
    /// When the key's last waiting write reaches main, the stream repeats its last value with `isPending`
    /// `false`, so a screen goes from "saving…" to "saved" without reading again. When that value is not the cache's
    /// copy of what main took — main's answer, which a stream that asks main first may have read while the write
    /// waited, an error, or a copy the cache evicted or dropped because main refused the write for good — the stream
    /// reads once more and shows that: never an older value, nor a refused one, as saved. A query that names no single key
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
        guard let keyed = query as? any KeyedQuery else {
            return repository.stream(query, operation: operation, bufferingNewest: limit)
        }
        // What makes the repository's stream read again once the key settles, after any read it has on its way: a
        // read of main made while the write waited may answer after the settled state is shown.
        let (readsAgain, readAgainSink) = AsyncStream.makeStream(
            of: DataChange.self,
            bufferingPolicy: .bufferingNewest(1)
        )
        let inner = repository.stream(query, operation: operation, bufferingNewest: limit, readingAgainOn: readsAgain)
        let key = keyed.key
        let (outbox, configuration, repository, turns) = (outbox, configuration, repository, cacheTurns)
        let (cache, cacheOrigin) = (repository.cache, repository.cache.origin.specified(or: .cache))
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
            await withTaskGroup(of: Void.self) { group in
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
                    var isPending = await outbox.isPending(key: key)
                    var waiting = isPending ? await outbox.latest(forKey: key) : nil
                    if let response = event {
                        last = response
                    } else if sentPending == isPending, waiting == nil {
                        continue
                    }
                    var readAgain = false
                    if sentPending == true, !isPending {
                        // The key settled: shown once, whatever it shows (an error included).
                        sentPending = false
                        if await !Self.cacheStillHolds(last, of: keyed, cache: cache, origin: cacheOrigin, turns: turns)
                        {
                            // The last response is not the cache's copy of what main took: main's answer, which may
                            // have been read while the write waited (older than it), an error, or the copy of a write
                            // main refused, which went. The stream reads again, shows that, and has the repository's
                            // stream read again after any read it has on its way.
                            last = await Self.readAgain(keyed, operation: operation, from: repository)
                            readAgainSink.yield(.put(key: key))
                            readAgain = true
                            // A write of the key may have begun meanwhile: its state, not the one before the read.
                            isPending = await outbox.isPending(key: key)
                            waiting = isPending ? await outbox.latest(forKey: key) : nil
                        }
                    }
                    guard let response = last else { continue }
                    let marked = Self.showing(
                        waiting,
                        over: Self.marking(response, pending: isPending),
                        decode: { try configuration.makeDecoder().decode(Value.self, from: $0) }
                    )
                    if case .value = marked { sentPending = isPending }
                    if event == nil, !readAgain, marked.value == nil { continue }
                    continuation.yield(marked)
                }
                group.cancelAll()
            }
            readAgainSink.finish()
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// What a stream shows of `response` while `waiting`, the key's newest queued write, waits to reach main: the
    /// write's value, or *not found* for a delete, as ``get(_:operation:)`` answers; `response` itself when nothing
    /// is queued (or only a first attempt is on its way, whose value the cache holds) or while it is loading.
    static func showing(
        _ waiting: PendingWrite?,
        over response: RepositoryResponse<Value>,
        decode: (Data) throws -> Value
    ) -> RepositoryResponse<Value> {
        guard let waiting, !response.isLoading else { return response }
        guard waiting.operation == .put, let data = waiting.value else {
            return .error(Self.deletedWhileWaiting(waiting.key), origin: response.origin)
        }
        guard let value = try? decode(data) else { return response }
        return .value(value, origin: response.origin, storedAt: nil, isStale: false, isPending: true)
    }

    /// The *not found* of a key whose delete waits in the outbox.
    static func deletedWhileWaiting(_ key: String) -> StrataError {
        StrataError.notFound("The value for key \(key) was deleted; the delete waits to reach main")
    }

    /// `response` with its pending state set, when it is a value.
    static func marking(_ response: RepositoryResponse<Value>, pending: Bool) -> RepositoryResponse<Value> {
        guard case .value(let value, let origin, let storedAt, let isStale, _) = response else { return response }
        return .value(value, origin: origin, storedAt: storedAt, isStale: isStale, isPending: pending)
    }
}

// What a stream shows when the key it showed waiting settles.
extension OfflineRepository {
    /// Whether `last`, the stream's last response, is the copy the cache holds now: a value the cache answered, whose
    /// entry is still there, stored at the same time. Then it is what main took, and the stream repeats it, no longer
    /// pending, without reading again.
    ///
    /// Checked in the key's cache turn, so a refusal that drops the copy (``dropRefusedCopy(ofKey:settling:)``) or a
    /// conflict that puts main's value in its place has done so before this looks.
    ///
    /// - Parameters:
    ///   - last: The stream's last response.
    ///   - query: The stream's query.
    ///   - cache: The repository's cache.
    ///   - origin: The origin of the cache's answers.
    ///   - turns: The repository's cache turns.
    static func cacheStillHolds(
        _ last: RepositoryResponse<Value>?,
        of query: any KeyedQuery,
        cache: Cache,
        origin: DataOrigin,
        turns: KeyTurns
    ) async -> Bool {
        guard let last, last.value != nil, last.origin == origin else { return false }
        await turns.take(query.key)
        let holds: Bool
        do {
            // Outside the call that opened the stream, as the stream's reads (``ObservationScope/asStreamReread(_:)``).
            let entry = try await CallContext.leftRunning { try await cache.getEntry(query) }
            holds = entry.storedAt == nil || last.storedAt == nil || entry.storedAt == last.storedAt
        } catch {
            holds = error.strataCode != .notFound
        }
        await turns.giveBack(query.key)
        return holds
    }

    /// The stream's read made again, once: what the key's settled state shows. As the repository stream's re-reads
    /// (``ObservationScope/asStreamReread(_:)``), it runs outside the call that opened the stream, and its write-back is
    /// the stream's own: streams are not told of it.
    ///
    /// - Parameters:
    ///   - query: The stream's query.
    ///   - operation: The stream's operation.
    ///   - repository: The repository read.
    static func readAgain(
        _ query: any KeyedQuery,
        operation: any RepositoryOperation,
        from repository: CacheRepository<Main, Cache>
    ) async -> RepositoryResponse<Value> {
        do {
            return try await ObservationScope.asStreamReread {
                try await repository.getResponse(query, operation: operation)
            }
        } catch {
            // The source that answered last: main whenever the operation asks it (after a cache miss too).
            let readsMain = operation.plan.read.map { $0.first == .main || !$0.asksMainOn.isEmpty } ?? true
            let origin =
                readsMain ? repository.main.origin.specified(or: .main) : repository.cache.origin.specified(or: .cache)
            return .error(error, origin: origin)
        }
    }
}
