extension CacheRepository where Cache: DeleteDataSource {
    /// Removes every cached entry tagged `tag` (``EntryMetadata/tags``): group invalidation.
    ///
    /// The cache deletes a ``TagQuery``: a store that keeps tags removes the entries of the group in time
    /// proportional to their number, and the next CacheSync read of each goes to main. Main is not touched, and still
    /// holds them: the cache's list answer goes too (every entry is main's answer again). It is not a deletion: the
    /// repository's streams are not told "deleted" but read again (every stream: a tag names no keys), and a
    /// cache-first one shows what main answers; the store's own observers (``DataSourceCapabilities/changes(forKey:)``
    /// on the cache) still hear each removal.
    ///
    /// - Parameter tag: The tag, such as `team:7`.
    /// - Throws: ``StrataError/Code/queryNotSupported`` when the cache does not keep tags; the cache's error.
    public func invalidate(tag: String) async throws {
        let query = TagQuery(tag)
        // Announced even when the delete fails part way: the copies it removed are gone.
        defer { changeBroadcaster.publishWrite(to: query) }
        try await writeStamps.recordingWrite(query) {
            try await ObservationScope.droppingCopies { try await cache.delete(query) }
            await forgetListAnswer()
        }
    }
}

extension CacheRepository where Main: PutDataSource, Cache: PutDataSource, Main.Value == Cache.Value {
    /// Writes a value with tags (``EntryMetadata/tags``) to the sources the operation's plan selects, so that
    /// ``invalidate(tag:)`` removes it with the other entries of its group.
    ///
    /// The write is ``putEntry(_:in:operation:)`` of the value with no metadata but its tags: each source stores
    /// it with its own clock and time to live, as ``put(_:in:operation:)`` would, and a store that keeps tags
    /// indexes it under each of them. A write replaces the entry's tags: a `put` without tags leaves it in no
    /// group.
    ///
    /// ```swift
    /// let ann = User(id: 1, name: "Ann")
    /// _ = try await users.put(ann, in: IdQuery(1), tags: ["team:7", "user:1"], operation: .cacheSync)
    /// try await users.invalidate(tag: "team:7")
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - query: Where to store it.
    ///   - tags: The groups it belongs to, such as `user:42`.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Returns: The value the last source returned.
    /// - Throws: As ``putEntry(_:in:operation:)``; ``StrataError/Code/invalidArgument`` from a store that refuses
    ///   a tag (an empty one, or one with a newline, in the file and JSON-file stores).
    public func put(
        _ value: Main.Value,
        in query: any Query,
        tags: Set<String>,
        operation: any RepositoryOperation
    ) async throws -> Main.Value {
        let entry = StoredEntry(value: value, metadata: EntryMetadata(tags: tags))
        return try await putEntry(entry, in: query, operation: operation)
    }
}
