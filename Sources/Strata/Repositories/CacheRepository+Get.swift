extension CacheRepository: GetRepository
where Main: GetDataSource, Cache: GetDataSource & PutDataSource, Main.Value == Cache.Value {
    /// Reads the value the query names from the sources the operation selects.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Throws: ``StrataError``: the source's error, ``StrataError/Code/cacheSyncFailed`` when the main
    ///   value could not be cached, ``StrataError/Code/operationNotSupported`` for an unknown operation.
    @inlinable
    public func get(_ query: any Query, operation: any RepositoryOperation) async throws -> Main.Value {
        // The hot path — a CacheSync or Default read that the cache answers — stays inlinable and allocation
        // free; everything else (misses, other operations) takes the general path below.
        if Self.readsCacheFirst(operation) {
            do {
                return try await cache.get(query)
            } catch let error as StrataError where error.isMiss {
                return try await readAfterCacheMiss(query, operation: operation, miss: error)
            }
        }
        return try await readAny(query, operation: operation)
    }

    /// Whether the operation is CacheSync or Default, the two whose GET asks the cache first.
    ///
    /// Opening the existential reads the operation's type from its container: comparing it is a pointer
    /// comparison, where `type(of:)` would be a runtime call and `is` a runtime cast. The operations are
    /// structs, so the container's type is the dynamic type.
    @inlinable
    static func readsCacheFirst<Operation: RepositoryOperation>(_ operation: Operation) -> Bool {
        Operation.self == CacheSyncOperation.self || Operation.self == DefaultOperation.self
    }

    /// A GET with any operation, by the table.
    @usableFromInline
    func readAny(_ query: any Query, operation: any RepositoryOperation) async throws -> Main.Value {
        try await read(
            plan: readPlan(for: operation),
            coalescing: (.get, query),
            fromMain: { [main] in try await main.get(query) },
            fromCache: { try await cache.get(query) },
            storeInCache: { [cache] in try await cache.put($0, in: query) }
        )
    }

    /// The rest of a CacheSync (or Default) GET after the cache missed with `miss`.
    @usableFromInline
    func readAfterCacheMiss(
        _ query: any Query,
        operation: any RepositoryOperation,
        miss: StrataError
    ) async throws -> Main.Value {
        let fallback: @Sendable (any Error) -> Bool
        if let operation = operation as? CacheSyncOperation {
            fallback = operation.fallback
        } else {
            fallback = { _ in false }
        }
        return try await readFromMain(
            afterMiss: miss,
            fallback: fallback,
            coalescing: (.get, query),
            fromMain: { [main] in try await main.get(query) },
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
            return try await readFromMain(
                afterMiss: miss,
                fallback: fallback,
                coalescing: coalescing,
                fromMain: fromMain,
                storeInCache: storeInCache
            )
        }
    }

    /// The main half of a CacheSync read: main (shared among concurrent identical misses), then the cache;
    /// on failure, the stale value when the fallback rule accepts the error.
    private func readFromMain<Result: Sendable>(
        afterMiss miss: StrataError,
        fallback: @Sendable (any Error) -> Bool,
        coalescing: (method: PluginCall.Method, query: any Query),
        fromMain: @escaping @Sendable () async throws -> Result,
        storeInCache: @escaping @Sendable (Result) async throws -> Result
    ) async throws -> Result {
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
