extension CacheRepository: DeleteRepository where Main: DeleteDataSource, Cache: DeleteDataSource {
    /// Deletes what the query names from the sources the operation's plan selects.
    ///
    /// Observers are told of the deletion once it happened, including a partial one (the first source deleted,
    /// the second failed). A delete main failed but may have taken (``StrataError/mayHaveTakenEffect``, or the
    /// caller's task was cancelled while main had it), in a plan the cache follows (`.mainSync`, `.default`; not
    /// `.main`), is announced as a write, so that streams read again; a delete that surely failed at the first source,
    /// or that failed at main alone, is not announced.
    ///
    /// - Parameters:
    ///   - query: What to delete.
    ///   - operation: See the table on ``CacheRepository``.
    public func delete(_ query: any Query, operation: any RepositoryOperation) async throws {
        try await runWrite(
            deletePlan(of: operation),
            .delete,
            query,
            (),
            toMain: { try await main.delete(query) },
            toCache: { try await cache.delete(query) },
            announce: { changeBroadcaster.publishDeletion(of: query) }
        )
    }
}

extension CacheRepository: Repository
where Main: DataSource, Cache: DataSource, Main.Value == Cache.Value {}
