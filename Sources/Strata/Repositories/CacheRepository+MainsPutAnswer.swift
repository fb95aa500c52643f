extension CacheRepository where Main: PutDataSource, Cache: PutDataSource, Main.Value == Cache.Value {
    /// Writes main's answer to a put of several values into the cache with `write`: for a list of keys
    /// (``MultiKeyedQuery``) keyed by identity — the caller's values' ids are the keys, in order — each value under
    /// the key it belongs to, as a read matches main's answer (``Swift/Array/matched(to:)``), never under another's;
    /// otherwise as it came, by position.
    ///
    /// Keyed by identity, a server that answers the values in another order (sorted) has each stored under its own
    /// key, with the metadata the caller gave that key. A key main's answer leaves out (one value twice in place of
    /// another) has the cache's older copy removed (``removeCopy(of:)``), and the others are stored; when it cannot be
    /// removed, the cache write fails with ``StrataError/Code/cacheSyncFailed`` and the write policy applies
    /// (``syncCache(after:payload:superseding:_:)``). Values the caller put under keys that are not their ids (a
    /// value under an alias too, values a store keys by position) are stored by position, as a main that stores by
    /// position (a ``KeyValueStore``) stored them.
    ///
    /// - Parameters:
    ///   - answer: Main's values, as it returned them.
    ///   - values: The values the caller put, in the order of the query's keys.
    ///   - metadata: The metadata of each key's entry, in the order of the query's keys; none by default.
    ///   - query: Where the values were written.
    ///   - write: Writes entries in a query into the cache; returns what the cache returned.
    /// - Returns: What the cache returned, or main's answer when some keys were left out.
    func storeMainsAnswer(
        _ answer: [Main.Value],
        given values: [Main.Value],
        metadata: [EntryMetadata] = [],
        in query: any Query,
        _ write: ([StoredEntry<Main.Value>], any Query) async throws -> [Main.Value]
    ) async throws -> [Main.Value] {
        func entry(_ value: Main.Value, at position: Int) -> StoredEntry<Main.Value> {
            StoredEntry(
                value: value,
                metadata: metadata.indices.contains(position) ? metadata[position] : EntryMetadata()
            )
        }
        guard let keyed = query as? any MultiKeyedQuery, values.identityKeys() == keyed.keys else {
            return try await write(answer.enumerated().map { entry($1, at: $0) }, query)
        }
        // Matched by value, then given the metadata of the key each value belongs to.
        let matched = try answer.map { StoredEntry(value: $0, metadata: EntryMetadata()) }.matched(to: keyed.keys)
            .enumerated().map { position, matched in matched.map { entry($0.value, at: position) } }
        let answered = matched.indices.filter { matched[$0] != nil }
        let written = answered.compactMap { matched[$0] }
        guard answered.count < keyed.keys.count else { return try await write(written, query) }
        let leftOut = matched.indices.filter { matched[$0] == nil }
        guard let leftOutQuery = keyed.selecting(positions: leftOut),
            let answeredQuery = keyed.selecting(positions: answered)
        else {
            // The query cannot be narrowed: no copy of its keys outlives main's answer.
            try await removeCopyInPlaceOfWrite(of: query, "a key the main source's answer left out")
            return answer
        }
        try await removeCopyInPlaceOfWrite(of: leftOutQuery, "a key the main source's answer left out")
        if !written.isEmpty { _ = try await write(written, answeredQuery) }
        return answer
    }
}
