extension KeyValueStore {
    /// The key a ``KeyedQuery`` names, or `nil` for other queries.
    ///
    /// The common ``KeyQuery`` is recognised by comparing the opened existential's type, a pointer comparison
    /// that the specialised caller folds: no cast, no allocation. Only other queries pay for a runtime
    /// conformance lookup.
    @inlinable @inline(__always)
    static func key(of query: any Query) -> String? {
        if let key = keyQueryKey(query) { return key }
        return (query as? any KeyedQuery)?.key
    }

    @inlinable @inline(__always)
    static func keyQueryKey<Q: Query>(_ query: Q) -> String? {
        guard Q.self == KeyQuery.self else { return nil }
        // `unsafeBitCast` is sound: this line runs only when `Q` is exactly `KeyQuery`.
        return unsafeBitCast(query, to: KeyQuery.self).key
    }

    /// The error of a query the store does not answer.
    @usableFromInline
    static func unsupported(_ query: any Query) -> StrataError {
        StrataError.queryNotSupported(query, by: Self.self)
    }

    /// The *not found* of a listing query on a store that holds no entry and was never given a list answer.
    @usableFromInline
    static func noListAnswer(_ query: any Query) -> StrataError {
        StrataError(
            .notFound,
            "No list answer stored for \(type(of: query)): the store holds no entry and was never given a list"
        )
    }

    /// Checks that `values` match the keys one to one.
    @usableFromInline
    static func checkCounts(_ values: Int, _ keys: [String]) throws {
        guard keys.count == values else {
            throw StrataError(.invalidArgument, "\(values) values for \(keys.count) keys")
        }
        for key in keys { try StrataError.checkKey(key) }
    }
}
