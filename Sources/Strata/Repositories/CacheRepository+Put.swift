extension CacheRepository: PutRepository
where Main: PutDataSource, Cache: PutDataSource, Main.Value == Cache.Value {
    /// Writes a value to the sources the operation selects.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - query: Where to store it.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Returns: The value the last source returned.
    public func put(_ value: Main.Value, in query: any Query, operation: any RepositoryOperation) async throws
        -> Main.Value
    {
        defer { changeBroadcaster.publishWrite(to: query) }
        return try await write(
            plan: writePlan(for: operation),
            value,
            toMain: { try await main.put($0, in: query) },
            toCache: { try await cache.put($0, in: query) }
        )
    }

    /// Writes several values to the sources the operation selects.
    ///
    /// - Parameters:
    ///   - values: The values to store.
    ///   - query: Where to store them.
    ///   - operation: See the table on ``CacheRepository``.
    public func putAll(
        _ values: [Main.Value],
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> [Main.Value] {
        defer { changeBroadcaster.publishWrite(to: query) }
        return try await write(
            plan: writePlan(for: operation),
            values,
            toMain: { try await main.putAll($0, in: query) },
            toCache: { try await cache.putAll($0, in: query) }
        )
    }

    /// The PUT column of the operation table, shared by `put` and `putAll`.
    private func write<Input: Sendable>(
        plan: Plan,
        _ input: Input,
        toMain: (Input) async throws -> Input,
        toCache: (Input) async throws -> Input
    ) async throws -> Input {
        switch plan {
        case .main:
            return try await toMain(input)
        case .mainSync:
            let stored = try await toMain(input)
            return try await syncCache(after: stored) { try await toCache(stored) }
        case .cache:
            return try await toCache(input)
        case .cacheSync:
            let cached = try await toCache(input)
            return try await toMain(cached)
        }
    }
}
