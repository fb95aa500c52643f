/// A query for the single value with the given identifier.
///
/// Its ``key`` is the identifier's `description`, so `IdQuery(42)` and `KeyQuery("42")` name the same
/// entry in a key-value source.
public struct IdQuery<ID: Hashable & Sendable & CustomStringConvertible>: KeyedQuery, Hashable {
    /// The identifier.
    public let id: ID

    /// Creates a query for the value with this identifier.
    ///
    /// - Parameter id: The identifier.
    public init(_ id: ID) {
        self.id = id
    }

    /// The identifier as a string key.
    public var key: String { id.description }
}
