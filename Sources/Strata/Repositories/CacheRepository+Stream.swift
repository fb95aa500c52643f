extension CacheRepository
where Main: GetDataSource, Cache: GetDataSource & PutDataSource, Main.Value == Cache.Value {
    /// Returns a stream of responses for a query: the first read, then a new read after every change.
    ///
    /// The first responses follow the operation:
    ///
    /// | operation | responses |
    /// |---|---|
    /// | ``DefaultOperation``, ``CacheSyncOperation`` | loading; the cached value (stale, if it failed validation); when the cache missed or was stale, the main value (stored in the cache) or the main error |
    /// | ``MainOperation`` | loading; the main value or error |
    /// | ``MainSyncOperation`` | loading; the main value (stored in the cache) or error |
    /// | ``CacheOperation`` | loading; the cached value or error (stale with `ignoringValidation`) |
    /// | an operation of your own | as its ``OperationPlan/Read`` says: the same algorithm as ``get(_:operation:)`` |
    ///
    /// When main confirms a stale entry with validators as current (*not modified*), the stale value is emitted
    /// again from main, not stale. A fallback rule (``CacheSyncOperation/fallback``) does not apply: the stream
    /// has already shown the stale value, and it reports main's error.
    ///
    /// The stream then stays open. A write or a delete through this repository (or a copy of it), or
    /// directly on its cache or main source when it announces changes
    /// (``DataSourceCapabilities/changes(forKey:)``), makes every open stream
    /// on the same key respond: after a write it reads again as above (without `loading`) and emits what
    /// it finds; after a delete it asks the source it reads first, alone, and emits
    /// ``RepositoryResponse/error(_:origin:)`` with ``StrataError/Code/notFound`` when that source holds nothing
    /// under the key, or reads again as after a write when it holds a value (the delete is older than it). A failed
    /// read emits an error and the stream stays open. A value equal to the previous one (for `Equatable` values) is
    /// not repeated.
    ///
    /// Backpressure: the stream keeps the newest `limit` responses (one by default); a slow consumer
    /// skips to the latest response instead of queueing every one. Changes are coalesced the same way:
    /// many writes during one read cause one more read, not many.
    ///
    /// The stream ends when the consuming task is cancelled or stops iterating; its task and its
    /// registrations end with it. A query that names no single key (not a ``KeyedQuery``) reads again on
    /// any change.
    ///
    /// - Parameters:
    ///   - query: Which value to read; a ``KeyedQuery`` to observe one entry.
    ///   - operation: Which sources to read, as for ``get(_:operation:)``.
    ///   - limit: How many undelivered responses to keep; older ones are dropped first.
    /// - Returns: A stream of ``RepositoryResponse``s that never finishes on its own, except after
    ///   ``StrataError/Code/operationNotSupported`` for an unknown operation.
    public func stream(
        _ query: any Query,
        operation: any RepositoryOperation = DefaultOperation(),
        bufferingNewest limit: Int = 1
    ) -> AsyncStream<RepositoryResponse<Main.Value>> {
        stream(query, operation: operation, bufferingNewest: limit, readingAgainOn: nil)
    }

    /// The stream of ``stream(_:operation:bufferingNewest:)``, which also reads again at every element of `changes`:
    /// a composition's own reason to read again, told to this stream alone (not to the repository's observers).
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: Which sources to read.
    ///   - limit: How many undelivered responses to keep.
    ///   - changes: More changes to read again at, as the repository's own; `nil` for none.
    package func stream(
        _ query: any Query,
        operation: any RepositoryOperation,
        bufferingNewest limit: Int,
        readingAgainOn changes: AsyncStream<DataChange>?
    ) -> AsyncStream<RepositoryResponse<Main.Value>> {
        let origins = (main: main.origin.specified(or: .main), cache: cache.origin.specified(or: .cache))
        var plan: OperationPlan.Read
        do {
            plan = try readPlan(of: operation)
        } catch {
            return AsyncStream { continuation in
                continuation.yield(.error(error, origin: origins.main))
                continuation.finish()
            }
        }
        // A stream shows the stale value before main is asked, so main's error is reported, not the stale value
        // again.
        if case .servedWhenMainFails = plan.staleValues { plan.staleValues = .notServed }
        // A stream shows the stale value and then main's anyway: it reads main in its own task, not the background.
        plan.refreshesInBackground = nil
        let firstOrigin = plan.first == .main ? origins.main : origins.cache
        let key = (query as? any KeyedQuery)?.key
        let stream = ResponseStream<Main.Value>(
            key: key,
            loadingOrigin: firstOrigin,
            primaryOrigin: firstOrigin,
            observe: {
                [changeBroadcaster.changes(forKey: key), cache.changes(forKey: key), main.changes(forKey: key)]
                    + (changes.map { [$0] } ?? [])
            },
            read: { [plan] emit in
                await streamRead(query, plan: plan, origins: origins, emit: emit)
            },
            isGone: { [plan, main, cache] in
                await ResponseStream<Main.Value>.isGone {
                    plan.first == .main ? try await main.getEntry(query) : try await cache.getEntry(query)
                }
            }
        )
        return stream.start(bufferingNewest: limit)
    }

    /// One read of a stream: the GET algorithm (``OperationPlan/Read``), emitting a stale value before main is
    /// asked about it, then the answer or the error with the origin of the source that gave it.
    private func streamRead(
        _ query: any Query,
        plan: OperationPlan.Read,
        origins: (main: DataOrigin, cache: DataOrigin),
        emit: ResponseStream<Main.Value>.Emitter
    ) async {
        let response = { @Sendable (answer: PlannedAnswer<StoredEntry<Main.Value>>) in
            RepositoryResponse.value(
                answer.entry.value,
                origin: answer.source == .main ? origins.main : origins.cache,
                storedAt: answer.entry.storedAt,
                isStale: answer.isStale
            )
        }
        do {
            // Stream reads are not shared with concurrent gets: each read of a stream is its own.
            let answer = try await runRead(plan, plannedGet(query), coalesces: false) { emit(response($0)) }
            emit(response(answer))
        } catch {
            emit(.error(error.error, origin: error.source == .main ? origins.main : origins.cache))
        }
    }
}
