/// A repository that writes values, choosing its sources by the operation of each call.
public protocol PutRepository<Value>: RepositoryCapabilities {
    /// The type of the values the repository serves.
    associatedtype Value: Sendable

    /// Stores a value in the sources the operation selects and returns what was stored.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - query: Where to store it.
    ///   - operation: Which source to write first and which to keep in sync.
    func put(_ value: Value, in query: any Query, operation: any RepositoryOperation) async throws -> Value

    /// Stores several values in the sources the operation selects and returns what was stored.
    ///
    /// - Parameters:
    ///   - values: The values to store.
    ///   - query: Where to store them.
    ///   - operation: Which source to write first and which to keep in sync.
    func putAll(_ values: [Value], in query: any Query, operation: any RepositoryOperation) async throws -> [Value]
}

// MARK: - Conveniences

extension PutRepository {
    /// Stores a value with ``DefaultOperation``.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - query: Where to store it.
    @discardableResult
    public func put(_ value: Value, in query: any Query) async throws -> Value {
        try await put(value, in: query, operation: DefaultOperation())
    }

    /// Stores several values with ``DefaultOperation``.
    ///
    /// - Parameters:
    ///   - values: The values to store.
    ///   - query: Where to store them.
    @discardableResult
    public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        try await putAll(values, in: query, operation: DefaultOperation())
    }
}
