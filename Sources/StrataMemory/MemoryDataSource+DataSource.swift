import Strata

// Every async method comes from the one query dispatcher of `KeyValueStore`. The hot keyed calls are restated here
// as one-line witnesses of the dispatcher's `@inlinable` bodies, so they are specialised into this module: a witness
// thunk calls them directly (no generic call, no witness-table lookup, no task allocation), and a `get` of a
// `KeyQuery` compares the opened existential's type, takes one lock and allocates nothing.
extension MemoryDataSource: KeyValueStore {
    /// The configuration's key function, for `putAll(_:in: AllObjectsQuery())`.
    public var keyOfValue: (@Sendable (Value) -> String)? { configuration.key }

    /// The keys of the entries tagged `tag`, in ascending order, from the store's index of tags: what
    /// `delete(TagQuery(tag))` removes.
    ///
    /// A write replaces an entry's tags with those it gives (none for a plain `put`); a renewal without tags keeps
    /// them.
    public func keys(taggedWith tag: String) -> [String]? {
        storage.withLock { $0.keys(taggedWith: tag) }
    }

    /// Returns the value a ``Strata/KeyedQuery`` names (see ``Strata/KeyValueStore``).
    ///
    /// - Throws: ``Strata/StrataError/Code/notFound`` when absent or expired,
    ///   ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries.
    @inlinable @inline(__always)
    nonisolated(nonsending) public func get(_ query: any Query) async throws -> Value {
        try keyedValue(for: query)
    }

    /// Returns the entry a ``Strata/KeyedQuery`` names with its metadata.
    ///
    /// - Throws: As ``get(_:)``.
    @inlinable
    nonisolated(nonsending) public func getEntry(_ query: any Query) async throws -> StoredEntry<Value> {
        try keyedEntry(for: query)
    }

    /// Stores a value under the key a ``Strata/KeyedQuery`` names, with the configuration's time to live.
    ///
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries.
    @inlinable
    nonisolated(nonsending) public func put(_ value: Value, in query: any Query) async throws -> Value {
        try storeKeyed(value, metadata: EntryMetadata(), in: query)
        return value
    }
}
