#if Postgres
    import Strata

    /// A cache in front of a ``PostgresDataSource`` that serves an entry only while the table's change feed vouches
    /// for it, so an instance never serves a value another instance has replaced once the change reached it.
    ///
    /// Make it with ``PostgresDataSource/coherentCache(_:)`` and use it as the cache of a `CacheRepository` whose main
    /// source is that same ``PostgresDataSource``:
    ///
    /// - When any instance writes or deletes a key, the feed drops exactly that key from this cache and the source
    ///   announces the change, so the repository's streams read the key again.
    /// - An entry is served only if it was read from PostgreSQL while the feed was listening, in the feed's current
    ///   epoch, and no newer version of its key has been announced since. That closes the race of a read that began
    ///   before a write and reaches the cache after the write's notification: its older version is refused.
    /// - When the feed reconnects (a new epoch), the cache is emptied; while the feed is down, nothing is served
    ///   from the cache and every read goes to PostgreSQL.
    /// - A value written into the cache by the repository itself (after a put) carries no version, so it is not
    ///   served: the next read takes the committed row, with its version, from PostgreSQL.
    /// - Listing queries (``Strata/AllObjectsQuery``, pages, filters) are never answered from the cache: the cache
    ///   holds only the keys it was asked for.
    ///
    /// Writes and deletes go to the wrapped cache as they are, except a delete of any other query (a filter, a key
    /// listing), which empties the cache.
    public struct PostgresCoherentCache<Cache: DataSource>: DataSource, Sendable {
        /// The wrapped cache.
        public let cache: Cache

        let feed: PostgresChangeFeed
        let registration: PostgresCacheRegistration

        init(cache: Cache, feed: PostgresChangeFeed) {
            self.cache = cache
            self.feed = feed
            self.registration = feed.register(cache)
        }

        /// The wrapped cache's origin.
        public var origin: DataOrigin { cache.origin }

        /// The wrapped cache's changes.
        ///
        /// - Parameter key: The key to observe; `nil` for every key.
        public func changes(forKey key: String?) -> AsyncStream<DataChange> { cache.changes(forKey: key) }

        /// Returns the cached value of a keyed query while the feed vouches for it.
        ///
        /// - Throws: ``Strata/StrataError/Code/notFound`` when there is none, or the feed cannot vouch for it (the
        ///   entry is then dropped); what the cache throws.
        public func get(_ query: any Query) async throws -> Cache.Value { try await getEntry(query).value }

        /// Returns the cached entry of a keyed query while the feed vouches for it, as ``get(_:)`` does.
        ///
        /// - Throws: As ``get(_:)``.
        public func getEntry(_ query: any Query) async throws -> StoredEntry<Cache.Value> {
            guard let query = query as? any KeyedQuery else { throw Self.notCached(query) }
            return try await vouched(query.key) { try await cache.getEntry(query) }
        }

        /// Returns the cached values of an ``Strata/IdsQuery`` (or a keyed query) while the feed vouches for each.
        ///
        /// - Throws: ``Strata/StrataError/Code/notFound`` for listing queries, which only PostgreSQL answers, and when
        ///   a key is missing or cannot be vouched for.
        public func getAll(_ query: any Query) async throws -> [Cache.Value] {
            try await getAllEntries(query).map(\.value)
        }

        /// Returns the cached entries of an ``Strata/IdsQuery`` (or a keyed query), as ``getAll(_:)`` does.
        ///
        /// - Throws: As ``getAll(_:)``.
        public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Cache.Value>] {
            switch query {
            case let query as any MultiKeyedQuery:
                let entries: [StoredEntry<Cache.Value>]
                do {
                    entries = try await cache.getAllEntries(query)
                } catch let error as StrataError where error.code == .notValid {
                    // The stale entries of a failed validation are vouched for as one key's are, before the repository
                    // may serve them (a plan that serves stale values, or falls back to them when PostgreSQL fails).
                    for (key, entry) in zip(query.keys, error.staleEntries(as: Cache.Value.self) ?? []) {
                        _ = try await vouched(key) { entry }
                    }
                    throw error
                }
                for (key, entry) in zip(query.keys, entries) {
                    _ = try await vouched(key) { entry }
                }
                return entries
            case let query as any KeyedQuery:
                return [try await getEntry(query)]
            default:
                throw Self.notCached(query)
            }
        }

        /// Stores the value in the wrapped cache.
        public func put(_ value: Cache.Value, in query: any Query) async throws -> Cache.Value {
            try await cache.put(value, in: query)
        }

        /// Stores the values of a keyed or multi-keyed query in the wrapped cache; a listing's values are not kept
        /// (only PostgreSQL answers listings).
        public func putAll(_ values: [Cache.Value], in query: any Query) async throws -> [Cache.Value] {
            guard Self.isKeyed(query) else { return values }
            return try await cache.putAll(values, in: query)
        }

        /// Stores the entry, with its version tag, in the wrapped cache, stamped with the cache's own clock.
        ///
        /// The row's `updated_at` (the entry's stored date) is not the time the cache took it: a cache that counts its
        /// time to live from it would take a row written longer ago than that already expired, and never serve it,
        /// and one whose date another program set in the future would keep it past its time to live.
        public func putEntry(_ entry: StoredEntry<Cache.Value>, in query: any Query) async throws -> Cache.Value {
            try await cache.putEntry(Self.stampedByTheCache(entry), in: query)
        }

        /// Stores the entries of a keyed or multi-keyed query, with their version tags, in the wrapped cache, stamped
        /// with its clock (see ``putEntry(_:in:)``); a listing's entries are not kept.
        public func putAllEntries(_ entries: [StoredEntry<Cache.Value>], in query: any Query) async throws
            -> [Cache.Value]
        {
            guard Self.isKeyed(query) else { return entries.map(\.value) }
            return try await cache.putAllEntries(entries.map(Self.stampedByTheCache), in: query)
        }

        /// The entry without its stored date, which the cache then gives it (see ``putEntry(_:in:)``).
        private static func stampedByTheCache(_ entry: StoredEntry<Cache.Value>) -> StoredEntry<Cache.Value> {
            var entry = entry
            entry.metadata.storedAt = nil
            return entry
        }

        /// Renews the metadata in the wrapped cache.
        public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
            try await cache.renewMetadata(metadata, in: query)
        }

        /// Deletes a keyed, multi-keyed or ``Strata/AllObjectsQuery`` query's entries from the wrapped cache; any
        /// other query (a filter, a key listing) empties it, since the cache cannot tell which of its entries the query
        /// covers (nor, as a rule, answer it). A repository's word that the list answer the cache stored is no longer
        /// main's goes to the wrapped cache as it is: it removes no entry.
        public func delete(_ query: any Query) async throws {
            guard Self.isKeyed(query) || query is AllObjectsQuery || query is StoredListAnswerQuery else {
                return try await cache.delete(AllObjectsQuery())
            }
            try await cache.delete(query)
        }

        /// Reads an entry and serves it only while the feed vouches for it; a stale entry of a failed validation is
        /// vouched for the same way before the repository may serve it.
        private func vouched(
            _ key: String,
            _ read: () async throws -> StoredEntry<Cache.Value>
        ) async throws -> StoredEntry<Cache.Value> {
            let key = StoreKey.canonical(key)
            let entry: StoredEntry<Cache.Value>
            do {
                entry = try await read()
            } catch let error as StrataError where error.code == .notValid {
                guard let stale = error.staleEntry(as: Cache.Value.self),
                    feed.vouches(forKey: key, tag: PostgresEntryTag(stale.metadata.eTag))
                else { throw try await drop(key) }
                throw error
            }
            guard feed.vouches(forKey: key, tag: PostgresEntryTag(entry.metadata.eTag)) else {
                throw try await drop(key)
            }
            return entry
        }

        /// Drops an entry the feed cannot vouch for (not announced to streams as a deletion: the value did not go)
        /// and returns the miss to throw.
        private func drop(_ key: String) async throws -> StrataError {
            await ObservationScope.droppingCopies { try? await cache.delete(KeyQuery(key)) }
            return StrataError.notFound("The change feed cannot vouch for the cached entry")
        }

        /// Whether the query names its keys (the only queries the cache answers).
        private static func isKeyed(_ query: any Query) -> Bool {
            query is any KeyedQuery || query is any MultiKeyedQuery
        }

        /// The miss of a query only PostgreSQL answers.
        private static func notCached(_ query: any Query) -> StrataError {
            StrataError.notFound("\(type(of: query)) is answered by PostgreSQL, never by the cache")
        }
    }

    extension PostgresCoherentCache: WriteStampedCache where Cache: WriteStampedCache {
        /// The wrapped cache's write stamps.
        package var sharedWriteStamps: CacheWriteStamps? { cache.sharedWriteStamps }
    }
#endif
