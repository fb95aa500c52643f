/// A source that writes values.
public protocol PutDataSource<Value>: Sendable {
    /// The type of the values the source holds.
    associatedtype Value: Sendable

    /// Stores a value where the query says and returns what was stored.
    ///
    /// A source may return a value that differs from its argument (a server that assigns an id, for
    /// example); repositories pass that returned value on when they sync.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - query: Where to store it.
    /// - Returns: The stored value.
    func put(_ value: Value, in query: any Query) async throws -> Value

    /// Stores several values where the query says and returns what was stored.
    ///
    /// - Parameters:
    ///   - values: The values to store; for an ``IdsQuery`` one per identifier, in order.
    ///   - query: Where to store them.
    /// - Returns: The stored values.
    func putAll(_ values: [Value], in query: any Query) async throws -> [Value]
}
