extension CacheRepository: GetRepository
where Main: GetDataSource, Cache: GetDataSource & PutDataSource, Main.Value == Cache.Value {
    /// Reads the value the query names from the sources the operation selects.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Throws: ``StrataError``: the source's error, ``StrataError/Code/cacheSyncFailed`` when the main
    ///   value could not be cached, ``StrataError/Code/operationNotSupported`` for an unknown operation.
    public func get(_ query: any Query, operation: any RepositoryOperation) async throws -> Main.Value {
        try await read(
            plan: readPlan(for: operation),
            coalescing: (.get, query),
            fromMain: { [main] in try await main.get(query) },
            fromCache: { try await cache.get(query) },
            storeInCache: { [cache] in try await cache.put($0, in: query) }
        )
    }

    /// Reads every value the query names from the sources the operation selects.
    ///
    /// - Parameters:
    ///   - query: Which values to read.
    ///   - operation: See the table on ``CacheRepository``.
    public func getAll(_ query: any Query, operation: any RepositoryOperation) async throws -> [Main.Value] {
        try await read(
            plan: readPlan(for: operation),
            coalescing: (.getAll, query),
            fromMain: { [main] in try await main.getAll(query) },
            fromCache: { try await cache.getAll(query) },
            storeInCache: { [cache] in try await cache.putAll($0, in: query) }
        )
    }

    /// The GET column of the operation table, shared by `get` and `getAll`.
    private func read<Result: Sendable>(
        plan: Plan,
        coalescing: (method: PluginCall.Method, query: any Query),
        fromMain: @escaping @Sendable () async throws -> Result,
        fromCache: () async throws -> Result,
        storeInCache: @escaping @Sendable (Result) async throws -> Result
    ) async throws -> Result {
        switch plan {
        case .main:
            return try await fromMain()
        case .mainSync:
            let value = try await fromMain()
            return try await syncCache(after: value) { try await storeInCache(value) }
        case .cache(let ignoringValidation):
            do {
                return try await fromCache()
            } catch let error as StrataError where ignoringValidation && error.code == .notValid {
                guard let stale = error.value(as: Result.self) else { throw error }
                return stale
            }
        case .cacheSync(let fallback):
            let miss: StrataError
            do {
                return try await fromCache()
            } catch let error as StrataError where error.isMiss {
                miss = error
            }
            do {
                let readAndStore = { @Sendable in
                    let value = try await fromMain()
                    return try await syncCache(after: value) { try await storeInCache(value) }
                }
                guard let key = mainReadKey(coalescing.method, coalescing.query) else {
                    return try await readAndStore()
                }
                return try await sharedMainRead(key, readAndStore)
            } catch {
                if miss.code == .notValid, let stale = miss.value(as: Result.self), fallback(error) {
                    return stale
                }
                throw error
            }
        }
    }
}
