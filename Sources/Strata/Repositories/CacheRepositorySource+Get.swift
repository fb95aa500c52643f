extension CacheRepositorySource: GetDataSource
where
    Main: GetDataSource, Cache: GetDataSource & PutDataSource, Main.Value == Cache.Value
{
    /// Reads through the repository with the source's operation.
    public func get(_ query: any Query) async throws -> Main.Value {
        try await repository.get(query, operation: operation)
    }

    /// Reads through the repository with the source's operation.
    public func getAll(_ query: any Query) async throws -> [Main.Value] {
        try await repository.getAll(query, operation: operation)
    }

    /// Reads through the repository, with the metadata of the tier that answered; a stale cached value served is
    /// reported as stale to a repository above.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Main.Value> {
        let (entry, _, isStale) = try await StaleAnswerReport.shielded { [repository, operation] in
            try await repository.getEntryMarkingStale(query, operation: operation)
        }
        StaleAnswerReport.mark(isStale)
        return entry
    }

    /// Reads through the repository, with the metadata of the tier that answered; stale cached values served are
    /// reported as stale to a repository above.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Main.Value>] {
        let (entries, isStale) = try await StaleAnswerReport.shielded { [repository, operation] in
            try await repository.getAllEntriesMarkingStale(query, operation: operation)
        }
        StaleAnswerReport.mark(isStale)
        return entries
    }

    /// Reads the entry through the repository (which revalidates its own stale entries with its main source);
    /// *not modified* when it carries `metadata`'s validators.
    public func getIfModified(
        _ query: any Query,
        since metadata: EntryMetadata
    ) async throws -> ConditionalRead<Main.Value> {
        let entry = try await getEntry(query)
        return Self.isSame(entry.metadata, as: metadata) ? .notModified(entry.metadata) : .modified(entry)
    }

    /// Whether two entries' validators name the same version: equal entity tags, else equal `Last-Modified`.
    static func isSame(_ entry: EntryMetadata, as cached: EntryMetadata) -> Bool {
        if let eTag = cached.eTag, let other = entry.eTag { return eTag == other }
        if let lastModified = cached.lastModified, let other = entry.lastModified { return lastModified == other }
        return false
    }
}
