/// A query for the single value stored under a string key.
public struct KeyQuery: KeyedQuery, Hashable, ExpressibleByStringLiteral {
    /// The key.
    public let key: String

    /// Creates a query for the value under this key.
    ///
    /// - Parameter key: Any string; stores map it to something safe for their medium.
    @inlinable
    public init(_ key: String) {
        self.key = key
    }

    /// Creates a query from a string literal, so `"user-42"` can stand where a query is expected.
    public init(stringLiteral value: String) {
        self.key = value
    }
}
