extension CacheRepository
where Main: GetDataSource, Cache: GetDataSource & PutDataSource, Main.Value == Cache.Value {
    /// Renews the cache's entry for `query` after main answered *not modified* to a conditional read sent with
    /// `stale`'s validators: with `renewed`'s metadata, and only the version `stale` names; what the read answers.
    ///
    /// A cache that renews (``PutDataSource/renewMetadata(_:in:)`` answers `true`) checks the version itself, under
    /// its lock (``EntryMetadata/renews(entryWithETag:lastModified:)``). One that cannot, or that holds no entry,
    /// gets the value written again with ``PutDataSource/putEntry(_:in:)`` only while the entry it holds is still that
    /// version, or none: a newer version another read stored while the conditional read was on its way is left as it
    /// is, and the read answers the value its 304 confirmed without storing it. The check and the write are made in
    /// the write-back's turn of the key (``writingBack(_:since:_:_:)``), which every write and write-back of the key
    /// through the repository waits for; a write made in the cache directly, past the repository, between the two is
    /// not seen (a cache that renews has no such gap).
    ///
    /// - Parameters:
    ///   - renewed: The stale value with the metadata main's *not modified* gave it.
    ///   - stale: The cached entry the conditional read was sent with.
    ///   - query: The entry's query.
    func renewCachedEntry(
        _ renewed: StoredEntry<Main.Value>,
        confirming stale: StoredEntry<Main.Value>,
        in query: any Query
    ) async throws -> StoredEntry<Main.Value> {
        let renewal = renewed.metadata.confirming(stale.metadata)
        if try await cache.renewMetadata(renewal, in: query) { return renewed }
        if let held = try await cachedMetadata(of: query),
            !renewal.renews(entryWithETag: held.eTag, lastModified: held.lastModified)
        {
            return renewed
        }
        return StoredEntry(value: try await cache.putEntry(renewed, in: query), metadata: renewed.metadata)
    }

    /// The metadata of the cache's entry for `query`, current or stale; `nil` when it holds none. An entry the cache
    /// says is not valid without showing it (no stale entry on the error) answers metadata without validators:
    /// another version than any a conditional read names.
    private func cachedMetadata(of query: any Query) async throws -> EntryMetadata? {
        do {
            return try await cache.getEntry(query).metadata
        } catch let error as StrataError where error.code == .notFound {
            return nil
        } catch let error as StrataError where error.code == .notValid {
            return error.staleEntry(as: Main.Value.self)?.metadata ?? EntryMetadata()
        }
    }
}
