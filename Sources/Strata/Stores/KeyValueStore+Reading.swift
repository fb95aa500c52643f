// The reading half of the query dispatcher: one implementation of the async read methods for every store.
extension KeyValueStore {
    /// Returns the value a ``KeyedQuery`` names.
    ///
    /// - Throws: ``StrataError/Code/notFound`` when absent or expired, ``StrataError/Code/invalidArgument``
    ///   for an empty key, ``StrataError/Code/queryNotSupported`` for other queries.
    @inlinable
    nonisolated(nonsending) public func get(_ query: any Query) async throws -> Value {
        try keyedValue(for: query)
    }

    /// Returns the entry a ``KeyedQuery`` names with its metadata.
    ///
    /// - Throws: As ``get(_:)``.
    @inlinable
    nonisolated(nonsending) public func getEntry(_ query: any Query) async throws -> StoredEntry<Value> {
        try keyedEntry(for: query)
    }

    /// Returns the values a query names: a ``MultiKeyedQuery`` in its order, a ``KeyedQuery`` as a list of
    /// one, a ``KeyListingQuery`` under the list rule (see ``KeyValueStore``).
    ///
    /// - Throws: ``StrataError/Code/notFound`` when a named key is absent, or for a listing the store has no
    ///   answer for; ``StrataError/Code/queryNotSupported`` for other queries.
    nonisolated(nonsending) public func getAll(_ query: any Query) async throws -> [Value] {
        try entries(for: query).map { $0.value }
    }

    /// Returns the entries a query names with their metadata, as ``getAll(_:)`` does.
    ///
    /// - Throws: As ``getAll(_:)``.
    nonisolated(nonsending) public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
        try entries(for: query)
    }

    /// The entry a ``KeyedQuery`` names, read without suspending: the hot path of ``get(_:)``.
    @inlinable @inline(__always)
    package func keyedEntry(for query: any Query) throws -> StoredEntry<Value> {
        guard let key = Self.key(of: query) else { throw Self.unsupported(query) }
        guard let entry = try checkedEntry(forKey: key) else { throw StrataError.miss(key: key) }
        return entry
    }

    /// The value a ``KeyedQuery`` names, read without suspending and without its metadata: the hot path of
    /// ``get(_:)``.
    @inlinable @inline(__always)
    package func keyedValue(for query: any Query) throws -> Value {
        guard let key = Self.key(of: query) else { throw Self.unsupported(query) }
        guard let value = try checkedValue(forKey: key) else { throw StrataError.miss(key: key) }
        return value
    }

    /// The entries a multi-value query names, read without suspending, within ``maximumReadSize`` in all.
    @usableFromInline
    func entries(for query: any Query) throws -> [StoredEntry<Value>] {
        var budget = StoreReadBudget(limit: maximumReadSize)
        switch query {
        case let query as any MultiKeyedQuery:
            return try query.keys.map { key in
                try budget.spend(storedSize(forKey: key), reading: key)
                guard let entry = try checkedEntry(forKey: key) else { throw StrataError.miss(key: key) }
                return entry
            }
        case let query as any KeyedQuery:
            return [try keyedEntry(for: query)]
        case let query as StoredListAnswerQuery:
            // A repository's cache read of a listing: only a list answer the store keeps answers it, and only whole.
            guard storedListAnswer.isStored else { throw Self.noListAnswer(query.listing) }
            let selected = query.listing.selectKeys(from: storedListAnswer.listed(sortedKeys()))
            let entries = try listedEntries(of: selected, budget: &budget)
            // An entry that expired, was damaged or went behind the store's back since the answer was stored: the
            // answer is no longer whole, and is no longer served.
            guard entries.count == selected.count else {
                storedListAnswer.forget()
                throw Self.noListAnswer(query.listing)
            }
            return entries
        case let query as any KeyListingQuery:
            let keys = sortedKeys()
            // A listing skips entries that expired, were damaged or were removed since the keys were read.
            let entries = try listedEntries(of: query.selectKeys(from: keys), budget: &budget)
            if keys.isEmpty, !storedListAnswer.isStored { throw Self.noListAnswer(query) }
            return entries
        default:
            throw Self.unsupported(query)
        }
    }

    /// The live entries of `keys`, in their order, each counted against `budget` before it is read; an entry that
    /// expired, was damaged or was removed since the keys were read is skipped.
    private func listedEntries(of keys: [String], budget: inout StoreReadBudget) throws -> [StoredEntry<Value>] {
        try keys.compactMap { key in
            try budget.spend(storedSize(forKey: key), reading: key)
            return try checkedListedEntry(forKey: key)
        }
    }
}
