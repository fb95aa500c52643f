extension CacheRepository: DeleteRepository where Main: DeleteDataSource, Cache: DeleteDataSource {
    /// Deletes what the query names from the sources the operation selects.
    ///
    /// - Parameters:
    ///   - query: What to delete.
    ///   - operation: See the table on ``CacheRepository``.
    public func delete(_ query: any Query, operation: any RepositoryOperation) async throws {
        switch try writePlan(for: operation) {
        case .main:
            try await main.delete(query)
        case .mainSync:
            try await main.delete(query)
            try await syncCache(after: ()) { try await cache.delete(query) }
        case .cache:
            try await cache.delete(query)
        case .cacheSync:
            try await cache.delete(query)
            try await main.delete(query)
        }
        changeBroadcaster.publishDeletion(of: query)
    }
}

extension CacheRepository: Repository
where Main: DataSource, Cache: DataSource, Main.Value == Cache.Value {}
