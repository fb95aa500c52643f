import struct Foundation.Date

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
    ///
    /// The stream then stays open. A write or a delete through this repository (or a copy of it), or
    /// directly on its cache or main source when it announces changes
    /// (``DataSourceCapabilities/changes(forKey:)``), makes every open stream
    /// on the same key respond: after a write it reads again as above (without `loading`) and emits what
    /// it finds; after a delete it emits ``RepositoryResponse/error(_:origin:)`` with
    /// ``StrataError/Code/notFound`` without reading again. A failed read emits an error and the stream
    /// stays open. A value equal to the previous one (for `Equatable` values) is not repeated.
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
        let mainOrigin = main.origin.specified(or: .main)
        let cacheOrigin = cache.origin.specified(or: .cache)
        let plan: Plan
        do {
            plan = try readPlan(for: operation)
        } catch {
            return AsyncStream { continuation in
                continuation.yield(.error(error, origin: mainOrigin))
                continuation.finish()
            }
        }
        let readsMainFirst: Bool =
            switch plan {
            case .main, .mainSync: true
            case .cache, .cacheSync: false
            }
        let key = (query as? any KeyedQuery)?.key
        let stream = ResponseStream<Main.Value>(
            key: key,
            loadingOrigin: readsMainFirst ? mainOrigin : cacheOrigin,
            primaryOrigin: readsMainFirst ? mainOrigin : cacheOrigin,
            observe: {
                [changeBroadcaster.changes(forKey: key), cache.changes(forKey: key), main.changes(forKey: key)]
            },
            read: { emit in
                await streamRead(query, plan: plan, origins: (main: mainOrigin, cache: cacheOrigin), emit: emit)
            }
        )
        return stream.start(bufferingNewest: limit)
    }

    /// One read of a stream, emitting as it goes: a stale value is emitted before the main source is asked.
    private func streamRead(
        _ query: any Query,
        plan: Plan,
        origins: (main: DataOrigin, cache: DataOrigin),
        emit: ResponseStream<Main.Value>.Emitter
    ) async {
        switch plan {
        case .main:
            do {
                emit(.value(try await main.get(query), origin: origins.main, storedAt: nil, isStale: false))
            } catch {
                emit(.error(error, origin: origins.main))
            }
        case .mainSync:
            await refreshFromMain(query, origin: origins.main, emit: emit)
        case .cache(let ignoringValidation):
            do {
                let entry = try await readCacheEntry(query)
                emit(.value(entry.value, origin: origins.cache, storedAt: entry.storedAt, isStale: false))
            } catch let error as StrataError where ignoringValidation && error.code == .notValid {
                if let stale = error.value(as: Main.Value.self) {
                    emit(.value(stale, origin: origins.cache, storedAt: nil, isStale: true))
                } else {
                    emit(.error(error, origin: origins.cache))
                }
            } catch {
                emit(.error(error, origin: origins.cache))
            }
        case .cacheSync:
            do {
                let entry = try await readCacheEntry(query)
                emit(.value(entry.value, origin: origins.cache, storedAt: entry.storedAt, isStale: false))
                return
            } catch let error as StrataError where error.isMiss {
                if error.code == .notValid, let stale = error.value(as: Main.Value.self) {
                    emit(.value(stale, origin: origins.cache, storedAt: nil, isStale: true))
                }
            } catch {
                emit(.error(error, origin: origins.cache))
                return
            }
            await refreshFromMain(query, origin: origins.main, emit: emit)
        }
    }

    /// Reads the main source and stores its value in the cache, as a MainSync get does.
    private func refreshFromMain(
        _ query: any Query,
        origin: DataOrigin,
        emit: ResponseStream<Main.Value>.Emitter
    ) async {
        do {
            let value = try await main.get(query)
            let stored = try await syncCache(after: value) { try await cache.put(value, in: query) }
            emit(.value(stored, origin: origin, storedAt: nil, isStale: false))
        } catch {
            emit(.error(error, origin: origin))
        }
    }

    /// Reads the cache with the entry's stored date when the cache records it.
    private func readCacheEntry(_ query: any Query) async throws -> (value: Main.Value, storedAt: Date?) {
        let entry = try await cache.getEntry(query)
        return (entry.value, entry.storedAt)
    }
}
