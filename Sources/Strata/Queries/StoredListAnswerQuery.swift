/// A listing query asked of a cache by a ``CacheRepository``: answered only from a list answer the cache stored
/// (``KeyValueStore``'s list rule: `putAll(_:in: AllObjectsQuery())`), never from the keys it happens to hold.
///
/// A cache that holds the entries one `get` wrote back does not hold the answer to "every entry" or to a page of
/// them: listing its keys would answer a list of all users with the one user read so far. A key-value store answers
/// this query with its listing when a list answer it stored is live, and with ``StrataError/Code/notFound``
/// otherwise; any other cache, which cannot say whether it holds a whole list, refuses it
/// (``StrataError/Code/queryNotSupported``), and the repository then asks main.
package struct StoredListAnswerQuery: Query, CustomStringConvertible {
    /// The listing asked.
    package let listing: any KeyListingQuery

    /// Wraps `listing`.
    package init(_ listing: any KeyListingQuery) { self.listing = listing }

    /// The listing's description: plugins that log a cache's calls show the query asked.
    package var description: String { String(describing: listing) }

    /// The listing of `query` when it is one a cache answers only from a stored list answer: a ``KeyListingQuery``
    /// that names no keys itself (not a ``KeyedQuery`` or a ``MultiKeyedQuery``).
    package static func listing(of query: any Query) -> (any KeyListingQuery)? {
        guard let listing = query as? any KeyListingQuery, !(query is any KeyedQuery), !(query is any MultiKeyedQuery)
        else { return nil }
        return listing
    }
}
