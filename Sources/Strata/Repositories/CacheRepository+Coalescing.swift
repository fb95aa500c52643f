extension CacheRepository {
    /// Identifies identical main reads: the method, the query, and whether the value is written back.
    struct MainReadKey: Hashable, @unchecked Sendable {
        // `AnyHashable` is not declared `Sendable`; it only ever wraps a `Sendable` query.
        let isGetAll: Bool
        let writesBack: Bool
        let query: AnyHashable
    }

    /// The key of a main read, or `nil` when coalescing is off or the query is not `Hashable`.
    func mainReadKey(isGetAll: Bool, writesBack: Bool, _ query: any Query) -> MainReadKey? {
        guard configuration.coalescesMainReads, let query = query as? any Hashable else { return nil }
        return MainReadKey(isGetAll: isGetAll, writesBack: writesBack, query: AnyHashable(query))
    }

    /// Runs `readAndStore` once for all the concurrent callers with an equal key.
    func sharedMainRead<Result: Sendable>(
        _ key: MainReadKey,
        _ readAndStore: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let value = try await mainReads.run(key: key) { try await readAndStore() }
        guard let result = value as? Result else {
            throw StrataError(.dataSerialization, "A shared main read returned \(type(of: value)), not \(Result.self)")
        }
        return result
    }
}
