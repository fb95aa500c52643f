import Foundation
import Strata

// The async methods never suspend: `nonisolated(nonsending)` runs them on the caller's executor, so a direct call
// makes no executor hop before taking the lock.
extension MemoryDataSource: DataSource {
    /// Returns the value a ``Strata/KeyedQuery`` names.
    ///
    /// - Throws: ``Strata/StrataError/Code/notFound`` when absent or expired,
    ///   ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries.
    @inlinable
    nonisolated(nonsending) public func get(_ query: any Query) async throws -> Value {
        try entry(for: query).value
    }

    /// Returns the values of a ``Strata/MultiKeyedQuery`` (in its order), of
    /// ``Strata/AllObjectsQuery`` (in key order) or of a ``Strata/PaginationOffsetLimitQuery``.
    ///
    /// - Throws: ``Strata/StrataError/Code/notFound`` when a named key is absent.
    nonisolated(nonsending) public func getAll(_ query: any Query) async throws -> [Value] {
        try entries(for: query).map(\.value)
    }

    /// Returns the entry a ``Strata/KeyedQuery`` names with its stored date.
    @inlinable
    nonisolated(nonsending) public func getEntry(_ query: any Query) async throws -> StoredEntry<Value> {
        try entry(for: query)
    }

    /// The entry a ``Strata/KeyedQuery`` names, read without suspending.
    @inlinable
    func entry(for query: any Query) throws -> StoredEntry<Value> {
        guard let key = Self.key(of: query) else { throw StrataError.queryNotSupported(query, by: Self.self) }
        guard let entry = entry(forKey: key) else { throw StrataError.miss(key: key) }
        return entry
    }

    /// Returns the entries of a multi-value query with their stored dates.
    nonisolated(nonsending) public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
        try entries(for: query)
    }

    /// The entries a multi-value query names, read without suspending.
    func entries(for query: any Query) throws -> [StoredEntry<Value>] {
        let keys = try keys(for: query)
        guard query is any MultiKeyedQuery || query is any KeyedQuery else {
            // A listing skips entries that expired or were removed since the keys were read.
            return keys.compactMap { entry(forKey: $0) }
        }
        return try keys.map { key in
            guard let entry = entry(forKey: key) else { throw StrataError.miss(key: key) }
            return entry
        }
    }

    /// Stores a value under the key a ``Strata/KeyedQuery`` names.
    @inlinable
    nonisolated(nonsending) public func put(_ value: Value, in query: any Query) async throws -> Value {
        guard let key = Self.key(of: query) else { throw StrataError.queryNotSupported(query, by: Self.self) }
        try StrataError.checkKey(key)
        setValue(value, forKey: key)
        return value
    }

    /// The key a ``Strata/KeyedQuery`` names, or `nil` for other queries.
    ///
    /// The common `KeyQuery` is recognised by comparing the opened existential's type, a pointer comparison;
    /// only other queries pay for a runtime conformance lookup.
    @inlinable
    static func key(of query: any Query) -> String? {
        if let key = keyQueryKey(query) { return key }
        return (query as? any KeyedQuery)?.key
    }

    @inlinable
    static func keyQueryKey<Q: Query>(_ query: Q) -> String? {
        guard Q.self == KeyQuery.self else { return nil }
        // `unsafeBitCast` is sound: this line runs only when `Q` is exactly `KeyQuery`.
        return unsafeBitCast(query, to: KeyQuery.self).key
    }

    /// Stores values under the keys a ``Strata/MultiKeyedQuery`` names (one value per key, in order), or,
    /// for ``Strata/AllObjectsQuery``, under the keys the configuration's `key` function gives.
    nonisolated(nonsending) public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        switch query {
        case let query as any MultiKeyedQuery:
            let keys = query.keys
            guard keys.count == values.count else {
                throw StrataError(.invalidArgument, "\(values.count) values for \(keys.count) keys")
            }
            for key in keys { try StrataError.checkKey(key) }
            for (key, value) in zip(keys, values) { setValue(value, forKey: key) }
        case is AllObjectsQuery:
            guard let key = configuration.key else { throw StrataError.queryNotSupported(query, by: Self.self) }
            let keys = values.map(key)
            for key in keys { try StrataError.checkKey(key) }
            for (key, value) in zip(keys, values) { setValue(value, forKey: key) }
        default:
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        return values
    }

    /// Deletes one entry (``Strata/KeyedQuery``), several (``Strata/MultiKeyedQuery``) or all
    /// (``Strata/AllObjectsQuery``).
    nonisolated(nonsending) public func delete(_ query: any Query) async throws {
        switch query {
        case let query as any KeyedQuery:
            try StrataError.checkKey(query.key)
            removeValue(forKey: query.key)
        case let query as any MultiKeyedQuery:
            for key in query.keys { try StrataError.checkKey(key) }
            for key in query.keys { removeValue(forKey: key) }
        case is AllObjectsQuery: removeAll()
        default: throw StrataError.queryNotSupported(query, by: Self.self)
        }
    }

    private func keys(for query: any Query) throws -> [String] {
        switch query {
        case let query as any MultiKeyedQuery: return query.keys
        case is AllObjectsQuery: return sortedKeys()
        case let query as PaginationOffsetLimitQuery: return Array(query.page(of: sortedKeys()))
        case let query as any KeyedQuery: return [query.key]
        default: throw StrataError.queryNotSupported(query, by: Self.self)
        }
    }
}
