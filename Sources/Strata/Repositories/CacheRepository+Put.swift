extension CacheRepository: PutRepository
where Main: PutDataSource, Cache: PutDataSource, Main.Value == Cache.Value {
    /// Writes a value to the sources the operation's plan selects.
    ///
    /// Observers are told of the write once it happened, including a partial one (the first source written,
    /// the second failed), and of one main failed but may have taken (``StrataError/mayHaveTakenEffect``, or the
    /// caller's task was cancelled while main had it) in a plan the cache follows (`.mainSync`, `.default`; not
    /// `.main`); a write that surely failed at the first source, or that failed at main alone, is not announced.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - query: Where to store it.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Returns: The value the last source returned.
    public func put(_ value: Main.Value, in query: any Query, operation: any RepositoryOperation) async throws
        -> Main.Value
    {
        try await runPut(.put, value, in: query, operation) {
            try await main.put($0, in: query)
        } toCache: {
            try await cache.put($0, in: query)
        }
    }

    /// Writes several values to the sources the operation's plan selects.
    ///
    /// The cache write that follows main's stores main's answer: for a list of keys that are the values' ids in order,
    /// each value under the key it belongs to (`storeMainsAnswer(_:given:metadata:in:_:)`), whatever order main
    /// answered in; for other keys, by position, as a main that stores by position did. A put in
    /// ``AllObjectsQuery`` that writes main too leaves the cache no list answer (main keeps its other entries).
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
        try await runPut(.putAll, values, in: query, operation) {
            try await main.putAll($0, in: query)
        } toCache: {
            try await cache.putAll($0, in: query)
        } toCacheAfterMain: {
            try await storeMainsAnswer($0, given: values, in: query) { try await cache.putAll($0.map(\.value), in: $1) }
        }
    }

    /// Writes a value with its metadata to the sources the operation's plan selects, as
    /// ``PutDataSource/putEntry(_:in:)`` does for one source: each keeps the entry's stored date and expiry.
    ///
    /// - Parameters:
    ///   - entry: The value and its metadata.
    ///   - query: Where to store it.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Returns: The value the last source returned.
    public func putEntry(
        _ entry: StoredEntry<Main.Value>,
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> Main.Value {
        try await runPut(.put, entry, in: query, operation) {
            StoredEntry(value: try await main.putEntry($0, in: query), metadata: $0.metadata)
        } toCache: {
            StoredEntry(value: try await cache.putEntry($0, in: query), metadata: $0.metadata)
        } payload: {
            $0.value
        }.value
    }

    /// Writes several values with their metadata to the sources the operation's plan selects.
    ///
    /// - Parameters:
    ///   - entries: The values and their metadata.
    ///   - query: Where to store them.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Returns: The values the last source returned.
    public func putAllEntries(
        _ entries: [StoredEntry<Main.Value>],
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> [Main.Value] {
        try await runPut(.putAll, entries, in: query, operation) {
            $0.keepingMetadata(of: try await main.putAllEntries($0, in: query))
        } toCache: {
            $0.keepingMetadata(of: try await cache.putAllEntries($0, in: query))
        } toCacheAfterMain: { answer in
            // Main's answer carries the entries' metadata by position: each key's is the caller's entry's for it.
            let stored = try await storeMainsAnswer(
                answer.map(\.value),
                given: entries.map(\.value),
                metadata: entries.map(\.metadata),
                in: query
            ) { try await cache.putAllEntries($0, in: $1) }
            return stored.map { StoredEntry(value: $0, metadata: EntryMetadata()) }
        } payload: {
            $0.map(\.value)
        }.map { $0.value }
    }

    /// Renews the metadata of the entry the query names in the sources the operation's plan writes, without
    /// rewriting its value; returns whether every one of them could.
    ///
    /// A cache renewal after main's follows the write policy, as every cache write after main's does: under
    /// ``CacheWritePolicy/bestEffort`` its failure gives `false`, under ``CacheWritePolicy/required``
    /// ``StrataError/Code/cacheSyncFailed``; either way the cache's copy is removed first (its metadata is no
    /// longer main's). When main's renewal fails, the rules of every write apply: after the cache's, main's error says
    /// the renewal may have taken effect (``StrataError/mayHaveTakenEffect``: the cache holds the new metadata); before
    /// the cache's, a renewal main may have taken (the caller's task was cancelled with it on its way, or main's error
    /// says so) removes the cache's copy, whose metadata may no longer be main's.
    ///
    /// - Parameters:
    ///   - metadata: The new metadata.
    ///   - query: Which entry to renew.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Returns: `true` when each source the plan writes renewed the entry.
    public func renewMetadata(
        _ metadata: EntryMetadata,
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> Bool {
        let plan = try writePlan(of: operation)
        let sources = plan.thenOther ? [plan.first, plan.first.other] : [plan.first]
        return try await recordingWrite(query) {
            var renewedAll = true
            for source in sources {
                let renewed: Bool
                if source == .main {
                    do {
                        renewed = try await main.renewMetadata(metadata, in: query)
                    } catch {
                        throw await mainFailed(error, in: plan, .put, query)
                    }
                } else if sources.first == .main {
                    renewed = try await syncCache(after: false, superseding: query) {
                        try await cache.renewMetadata(metadata, in: query)
                    }
                } else {
                    renewed = try await cache.renewMetadata(metadata, in: query)
                }
                renewedAll = renewedAll && renewed
            }
            return renewedAll
        }
    }
}
