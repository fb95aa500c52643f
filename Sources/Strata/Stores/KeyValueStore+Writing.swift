import Foundation

// The writing half of the query dispatcher: one implementation of the async write methods for every store.
extension KeyValueStore {
    /// Stores a value under the key a ``KeyedQuery`` names, with the store's time to live.
    ///
    /// - Throws: ``StrataError/Code/invalidArgument`` for an empty key, ``StrataError/Code/queryNotSupported``
    ///   for other queries, and what the store's write throws.
    @inlinable
    nonisolated(nonsending) public func put(_ value: Value, in query: any Query) async throws -> Value {
        try storeKeyed(value, metadata: EntryMetadata(), in: query)
        return value
    }

    /// Stores a value with the metadata it had where it came from: its stored date, expiry and (where the store
    /// keeps them) validators, so the copy never outlives its original.
    ///
    /// - Throws: As ``put(_:in:)``.
    @inlinable
    nonisolated(nonsending) public func putEntry(_ entry: StoredEntry<Value>, in query: any Query) async throws -> Value
    {
        try storeKeyed(entry.value, metadata: entry.metadata, in: query)
        return entry.value
    }

    /// Writes a value under the key a ``KeyedQuery`` names, without suspending: the hot path of ``put(_:in:)``.
    @inlinable @inline(__always)
    package func storeKeyed(_ value: Value, metadata: EntryMetadata, in query: any Query) throws {
        guard let key = Self.key(of: query) else { throw Self.unsupported(query) }
        try StrataError.checkKey(key)
        try setValue(value, forKey: key, metadata: metadata)
    }

    /// Stores values: one per key of a ``MultiKeyedQuery`` (in order), exactly one for a ``KeyedQuery``, or,
    /// for ``AllObjectsQuery``, each under the key ``keyOfValue`` gives it, recording the list answer (see the
    /// list rule of ``KeyValueStore``).
    ///
    /// Each value is written on its own: a failure leaves (and announces) the earlier ones written, and records
    /// no list answer.
    ///
    /// - Throws: ``StrataError/Code/invalidArgument`` when the counts differ or a key is empty,
    ///   ``StrataError/Code/queryNotSupported`` for other queries and for a non-empty list without a key
    ///   function.
    nonisolated(nonsending) public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        try store(values.map { StoredEntry(value: $0, metadata: EntryMetadata()) }, in: query)
        return values
    }

    /// Stores values with their metadata, as ``putAll(_:in:)`` does.
    ///
    /// - Throws: As ``putAll(_:in:)``.
    nonisolated(nonsending) public func putAllEntries(
        _ entries: [StoredEntry<Value>],
        in query: any Query
    ) async throws -> [Value] {
        try store(entries, in: query)
        return entries.map { $0.value }
    }

    /// Replaces the metadata of the entry a ``KeyedQuery`` names without rewriting its value (``renewMetadata(_:forKey:)``).
    ///
    /// - Returns: `true` when the entry was renewed, or left as another version than the renewal confirmed;
    ///   `false` when the store holds none.
    /// - Throws: ``StrataError/Code/queryNotSupported`` for other queries, and what the store's renewal throws.
    nonisolated(nonsending) public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws
        -> Bool
    {
        guard let key = Self.key(of: query) else { throw Self.unsupported(query) }
        try StrataError.checkKey(key)
        return try renewMetadata(metadata, forKey: key)
    }

    /// Deletes one entry (``KeyedQuery``), several (``MultiKeyedQuery``), every one (``AllObjectsQuery``,
    /// which also forgets the stored list answer), those a ``KeyListingQuery`` selects, or those tagged with a
    /// ``TagQuery``'s tag (in a store that keeps tags); a repository's delete of its listing's stored answer forgets
    /// the stored list answer alone.
    ///
    /// - Throws: ``StrataError/Code/invalidArgument`` for an empty key, ``StrataError/Code/queryNotSupported``
    ///   for other queries, and what the store's removal throws.
    nonisolated(nonsending) public func delete(_ query: any Query) async throws {
        switch query {
        case let query as any KeyedQuery:
            try StrataError.checkKey(query.key)
            try removeValue(forKey: query.key)
        case let query as any MultiKeyedQuery:
            let keys = query.keys
            for key in keys { try StrataError.checkKey(key) }
            for key in keys { try removeValue(forKey: key) }
        case is AllObjectsQuery:
            try removeAll()
        case let query as any KeyListingQuery:
            for key in query.selectKeys(from: sortedKeys()) { try removeValue(forKey: key) }
        case let query as TagQuery:
            guard let keys = keys(taggedWith: query.tag) else { throw Self.unsupported(query) }
            for key in keys { try removeValue(forKey: key, ifTagged: query.tag) }
        case is StoredListAnswerQuery:
            // A repository's word that main's newer answer to a listing could not be stored: the older answer is no
            // longer served; the entries stay.
            storedListAnswer.forget()
        default:
            throw Self.unsupported(query)
        }
    }

    /// Writes entries where a multi-value query says, without suspending.
    @usableFromInline
    func store(_ entries: [StoredEntry<Value>], in query: any Query) throws {
        switch query {
        case let query as any MultiKeyedQuery:
            let keys = query.keys
            try Self.checkCounts(entries.count, keys)
            for (key, entry) in zip(keys, entries) { try setValue(entry.value, forKey: key, metadata: entry.metadata) }
        case let query as any KeyedQuery:
            try Self.checkCounts(entries.count, [query.key])
            try setValue(entries[0].value, forKey: query.key, metadata: entries[0].metadata)
        case is AllObjectsQuery:
            var keys: [String] = []
            if !entries.isEmpty {
                guard let keyOfValue else { throw Self.unsupported(query) }
                keys = entries.map { keyOfValue($0.value) }
                try Self.checkCounts(entries.count, keys)
            }
            // Recorded before the entries are written: one the store evicts to make room for another (a count or
            // size limit below the answer's) makes it forget the answer again, which is then not whole.
            // The keys held that main's answer does not list are values main no longer has: left out of the listing.
            storedListAnswer.record(
                expiresAt: entries.compactMap { $0.metadata.expiresAt }.min(),
                leavingOut: Set(sortedKeys()).subtracting(keys)
            )
            do {
                for (key, entry) in zip(keys, entries) {
                    try setValue(entry.value, forKey: key, metadata: entry.metadata)
                }
            } catch {
                storedListAnswer.forget()
                throw error
            }
        default:
            throw Self.unsupported(query)
        }
    }
}
