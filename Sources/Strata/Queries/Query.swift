/// A description of what a data source should read, write or delete.
///
/// Strata ships the queries of Harmony — ``IdQuery``, ``IdsQuery``, ``KeyQuery``, ``AllObjectsQuery`` and
/// ``PaginationOffsetLimitQuery`` — and any `Sendable` type can be a query of your own. A data source that
/// cannot answer a query throws ``StrataError/Code/queryNotSupported``; it never crashes.
///
/// Make your queries `Hashable` when you can: coalescing of identical concurrent gets needs equality.
public protocol Query: Sendable {}

/// A query that names exactly one stored entry by a string key.
///
/// Key-value sources (memory, file, JSON file) answer every ``KeyedQuery``; ``IdQuery`` and ``KeyQuery``
/// conform.
public protocol KeyedQuery: Query {
    /// The key of the entry.
    var key: String { get }
}

/// A query that names several entries by their keys.
public protocol MultiKeyedQuery: Query {
    /// The keys of the entries, in the order the answer should have.
    var keys: [String] { get }

    /// The query for some of this query's keys, in the order given; `nil` when the query cannot be narrowed.
    ///
    /// A ``CacheRepository`` that finds some of the keys in its cache asks main for the others only, with the
    /// query this returns (``IdsQuery`` narrows to the ids at `positions`). The default is `nil`: the repository
    /// then asks main for every key.
    ///
    /// - Parameter positions: Indices into ``keys``, each valid.
    func selecting(positions: [Int]) -> (any MultiKeyedQuery)?
}

// MARK: - Defaults

extension MultiKeyedQuery {
    /// `nil`: the query cannot be narrowed.
    public func selecting(positions: [Int]) -> (any MultiKeyedQuery)? { nil }
}
