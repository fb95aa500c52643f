extension CacheRepositorySource: PutDataSource
where Main: PutDataSource, Cache: PutDataSource, Main.Value == Cache.Value {
    /// Writes through the repository with the source's operation.
    public func put(_ value: Main.Value, in query: any Query) async throws -> Main.Value {
        try await repository.put(value, in: query, operation: operation)
    }

    /// Writes through the repository with the source's operation.
    public func putAll(_ values: [Main.Value], in query: any Query) async throws -> [Main.Value] {
        try await repository.putAll(values, in: query, operation: operation)
    }

    /// Writes the entry with its metadata to every tier the operation writes.
    public func putEntry(_ entry: StoredEntry<Main.Value>, in query: any Query) async throws -> Main.Value {
        try await repository.putEntry(entry, in: query, operation: operation)
    }

    /// Writes the entries with their metadata to every tier the operation writes.
    public func putAllEntries(_ entries: [StoredEntry<Main.Value>], in query: any Query) async throws -> [Main.Value] {
        try await repository.putAllEntries(entries, in: query, operation: operation)
    }

    /// Renews the metadata in every tier the operation writes; `false` unless each of them could.
    public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        try await repository.renewMetadata(metadata, in: query, operation: operation)
    }
}

extension CacheRepositorySource: DeleteDataSource where Main: DeleteDataSource, Cache: DeleteDataSource {
    /// Deletes through the repository with the source's operation.
    ///
    /// A repository above that forgets this tier's list answer (its main's newer answer could not be stored) forgets
    /// it in this repository's cache, which keeps it; main is not asked. (A tier whose main is itself a store answers
    /// a listing from that store's keys, as any repository answers from its main.)
    public func delete(_ query: any Query) async throws {
        if query is StoredListAnswerQuery {
            try await repository.cache.delete(query)
            return
        }
        try await repository.delete(query, operation: operation)
    }
}

extension CacheRepositorySource: DataSource where Main: DataSource, Cache: DataSource, Main.Value == Cache.Value {}
