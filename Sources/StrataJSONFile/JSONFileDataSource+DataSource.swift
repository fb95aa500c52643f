import Foundation
import Strata

extension JSONFileDataSource: DataSource {
    /// Returns the value a ``Strata/KeyedQuery`` names and marks it most recently used.
    ///
    /// - Throws: ``Strata/StrataError/Code/notFound`` when absent, expired or corrupt,
    ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries.
    public func get(_ query: any Query) async throws -> Value {
        try entry(for: query).value
    }

    /// Returns the values of a ``Strata/MultiKeyedQuery`` (in its order), of
    /// ``Strata/AllObjectsQuery`` (in key order) or of a ``Strata/PaginationOffsetLimitQuery`` (a page
    /// of the key order).
    ///
    /// Keyed reads mark their entries most recently used; listings do not. A listing or a page skips
    /// entries whose files turn out to be missing or corrupt (those are reported and moved aside).
    ///
    /// - Throws: ``Strata/StrataError/Code/notFound`` when a key a ``Strata/MultiKeyedQuery`` names is
    ///   absent, ``Strata/StrataError/Code/queryNotSupported`` for other queries.
    public func getAll(_ query: any Query) async throws -> [Value] {
        try entries(for: query).map(\.value)
    }

    /// Returns the entry a ``Strata/KeyedQuery`` names with its stored date.
    ///
    /// - Throws: As ``get(_:)``.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Value> {
        try entry(for: query)
    }

    /// The entry a ``Strata/KeyedQuery`` names, read without suspending.
    func entry(for query: any Query) throws -> StoredEntry<Value> {
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        guard let entry = try entry(forKey: query.key) else {
            throw StrataError.miss(key: query.key)
        }
        return entry
    }

    /// Returns the entries of a multi-value query with their stored dates.
    ///
    /// - Throws: As ``getAll(_:)``.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
        try entries(for: query)
    }

    /// The entries a multi-value query names, read without suspending.
    func entries(for query: any Query) throws -> [StoredEntry<Value>] {
        let now = configuration.clock.now()
        switch query {
        case let query as any MultiKeyedQuery:
            let keys = query.keys
            return try withStorage { storage in
                try keys.map { key in
                    guard let entry = try readEntry(key, from: &storage, touching: true) else {
                        throw StrataError.miss(key: key)
                    }
                    return entry
                }
            }
        case is AllObjectsQuery:
            return try withStorage { storage in
                try liveKeys(in: &storage, now: now).compactMap { try readEntry($0, from: &storage, touching: false) }
            }
        case let query as PaginationOffsetLimitQuery:
            return try withStorage { storage in
                let keys = liveKeys(in: &storage, now: now)
                return try query.page(of: keys).compactMap { try readEntry($0, from: &storage, touching: false) }
            }
        default:
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
    }

    /// Stores a value under the key a ``Strata/KeyedQuery`` names, with the default maximum age.
    ///
    /// - Throws: ``Strata/StrataError/Code/queryNotSupported`` for other queries, and as
    ///   ``setValue(_:forKey:maxAge:)``.
    public func put(_ value: Value, in query: any Query) async throws -> Value {
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        try setValue(value, forKey: query.key)
        return value
    }

    /// Stores values under the keys a ``Strata/MultiKeyedQuery`` names (one value per key, in order), or,
    /// for ``Strata/AllObjectsQuery``, under the keys the configuration's `key` function gives.
    ///
    /// Each value is written atomically on its own; a failure leaves the earlier ones written.
    ///
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` when the counts differ,
    ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries (and for ``Strata/AllObjectsQuery``
    ///   without a key function).
    public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        switch query {
        case let query as any MultiKeyedQuery:
            let keys = query.keys
            guard keys.count == values.count else {
                throw StrataError(.invalidArgument, "\(values.count) values for \(keys.count) keys")
            }
            for key in keys { try StrataError.checkKey(key) }
            for (key, value) in zip(keys, values) { try setValue(value, forKey: key) }
        case is AllObjectsQuery:
            guard let key = configuration.key else { throw StrataError.queryNotSupported(query, by: Self.self) }
            for value in values { try setValue(value, forKey: key(value)) }
        default:
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        return values
    }

    /// Deletes one entry (``Strata/KeyedQuery``), several (``Strata/MultiKeyedQuery``) or all
    /// (``Strata/AllObjectsQuery``).
    ///
    /// - Throws: ``Strata/StrataError/Code/queryNotSupported`` for other queries,
    ///   ``Strata/StrataError/Code/io`` when a file operation fails.
    public func delete(_ query: any Query) async throws {
        switch query {
        case let query as any KeyedQuery: try removeValue(forKey: query.key)
        case let query as any MultiKeyedQuery: for key in query.keys { try removeValue(forKey: key) }
        case is AllObjectsQuery: try removeAll()
        default: throw StrataError.queryNotSupported(query, by: Self.self)
        }
    }
}
