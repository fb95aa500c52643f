import Foundation
import Strata

extension FileDataSource: DataSource {
    /// Returns the data a ``Strata/KeyedQuery`` names.
    ///
    /// - Throws: ``Strata/StrataError/Code/notFound`` when absent, expired or damaged,
    ///   ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries.
    public func get(_ query: any Query) async throws -> Data {
        try entry(for: query).value
    }

    /// Returns the values of a ``Strata/MultiKeyedQuery`` (in its order), of ``Strata/AllObjectsQuery`` (in
    /// key order) or of a ``Strata/PaginationOffsetLimitQuery`` (a page of the key order).
    ///
    /// - Throws: ``Strata/StrataError/Code/notFound`` when a key a ``Strata/MultiKeyedQuery`` names is absent.
    public func getAll(_ query: any Query) async throws -> [Data] {
        try entries(for: query).map(\.value)
    }

    /// Returns the entry a ``Strata/KeyedQuery`` names with the date it was written.
    ///
    /// - Throws: As ``get(_:)``.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Data> {
        try entry(for: query)
    }

    /// The entry a ``Strata/KeyedQuery`` names, read without suspending.
    func entry(for query: any Query) throws -> StoredEntry<Data> {
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        guard let entry = entry(forKey: query.key) else { throw StrataError.miss(key: query.key) }
        return entry
    }

    /// Returns the entries of a multi-value query with the dates they were written.
    ///
    /// - Throws: As ``getAll(_:)``.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Data>] {
        try entries(for: query)
    }

    /// The entries a multi-value query names, read without suspending.
    func entries(for query: any Query) throws -> [StoredEntry<Data>] {
        switch query {
        case let query as any MultiKeyedQuery:
            return try query.keys.map { key in
                guard let entry = entry(forKey: key) else { throw StrataError.miss(key: key) }
                return entry
            }
        case is AllObjectsQuery:
            // A listing skips entries that expired, were damaged or were removed since the keys were read.
            return keys().compactMap { entry(forKey: $0) }
        case let query as PaginationOffsetLimitQuery:
            return query.page(of: keys()).compactMap { entry(forKey: $0) }
        default:
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
    }

    /// Stores data under the key a ``Strata/KeyedQuery`` names, with the configuration's lifetime.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when writing fails,
    ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries.
    public func put(_ value: Data, in query: any Query) async throws -> Data {
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        try setData(value, forKey: query.key)
        return value
    }

    /// Stores data under the keys a ``Strata/MultiKeyedQuery`` names, one value per key, in order.
    ///
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` when the counts differ,
    ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries.
    public func putAll(_ values: [Data], in query: any Query) async throws -> [Data] {
        guard let query = query as? any MultiKeyedQuery else {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        let keys = query.keys
        guard keys.count == values.count else {
            throw StrataError(.invalidArgument, "\(values.count) values for \(keys.count) keys")
        }
        for (key, value) in zip(keys, values) { try setData(value, forKey: key) }
        return values
    }

    /// Deletes one entry (``Strata/KeyedQuery``), several (``Strata/MultiKeyedQuery``) or all
    /// (``Strata/AllObjectsQuery``).
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when a file cannot be removed,
    ///   ``Strata/StrataError/Code/queryNotSupported`` for other queries.
    public func delete(_ query: any Query) async throws {
        switch query {
        case let query as any KeyedQuery: try removeData(forKey: query.key)
        case let query as any MultiKeyedQuery: for key in query.keys { try removeData(forKey: key) }
        case is AllObjectsQuery: try removeAll()
        default: throw StrataError.queryNotSupported(query, by: Self.self)
        }
    }
}
