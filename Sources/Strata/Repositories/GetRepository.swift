/// A repository that reads values, choosing its sources by the operation of each call.
public protocol GetRepository<Value>: RepositoryCapabilities {
    /// The type of the values the repository serves.
    associatedtype Value: Sendable

    /// Returns the value the query names, reading the sources the operation selects.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: Which source to ask first and which to keep in sync.
    /// - Throws: ``StrataError``; ``StrataError/Code/operationNotSupported`` for an unknown operation.
    func get(_ query: any Query, operation: any RepositoryOperation) async throws -> Value

    /// Returns every value the query names, reading the sources the operation selects.
    ///
    /// - Parameters:
    ///   - query: Which values to read.
    ///   - operation: Which source to ask first and which to keep in sync.
    func getAll(_ query: any Query, operation: any RepositoryOperation) async throws -> [Value]
}

// MARK: - Conveniences

extension GetRepository {
    /// Returns the value the query names with ``DefaultOperation``.
    ///
    /// - Parameter query: Which value to read.
    public func get(_ query: any Query) async throws -> Value {
        try await get(query, operation: DefaultOperation())
    }

    /// Returns every value the query names with ``DefaultOperation``.
    ///
    /// - Parameter query: Which values to read.
    public func getAll(_ query: any Query) async throws -> [Value] {
        try await getAll(query, operation: DefaultOperation())
    }
}
