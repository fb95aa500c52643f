/// A query that lists entries of a key-value store by selecting keys out of its sorted live keys: the hook
/// for listing queries of your own (a prefix, a range) that every ``KeyValueStore`` then answers.
///
/// ```swift
/// struct PrefixQuery: KeyListingQuery {
///     let prefix: String
///     func selectKeys(from sortedKeys: [String]) -> [String] { sortedKeys.filter { $0.hasPrefix(prefix) } }
/// }
/// ```
///
/// ``AllObjectsQuery`` (every key) and ``PaginationOffsetLimitQuery`` (a page of the keys) are listing
/// queries. A store answers them under the list rule of ``KeyValueStore``.
public protocol KeyListingQuery: Query {
    /// The keys the query lists, in the order to answer them.
    ///
    /// - Parameter sortedKeys: The store's live keys in ascending order.
    /// - Returns: The selected keys.
    func selectKeys(from sortedKeys: [String]) -> [String]
}

extension AllObjectsQuery: KeyListingQuery {
    /// Every key, in ascending order.
    ///
    /// - Parameter sortedKeys: The store's live keys in ascending order.
    public func selectKeys(from sortedKeys: [String]) -> [String] { sortedKeys }
}

extension PaginationOffsetLimitQuery: KeyListingQuery {
    /// The page of the keys this query names.
    ///
    /// - Parameter sortedKeys: The store's live keys in ascending order.
    public func selectKeys(from sortedKeys: [String]) -> [String] { Array(page(of: sortedKeys)) }
}
