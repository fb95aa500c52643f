/// A full ``Repository`` assembled from separate get, put and delete parts.
///
/// It also erases the types of its parts, so it is the way to store repositories of different types in
/// one property.
public struct RepositoryAssembler<Value: Sendable>: Repository {
    private let parts: AssemblerParts<any GetRepository<Value>, any PutRepository<Value>, any DeleteRepository>

    /// Assembles a repository from three parts.
    ///
    /// - Parameters:
    ///   - get: Answers `get` and `getAll`.
    ///   - put: Answers `put` and `putAll`.
    ///   - delete: Answers `delete`.
    public init(get: some GetRepository<Value>, put: some PutRepository<Value>, delete: some DeleteRepository) {
        parts = AssemblerParts(getter: get, putter: put, deleter: delete)
    }

    /// Reads through the get part.
    public func get(_ query: any Query, operation: any RepositoryOperation) async throws -> Value {
        try await parts.getter.get(query, operation: operation)
    }

    /// Reads through the get part.
    public func getAll(_ query: any Query, operation: any RepositoryOperation) async throws -> [Value] {
        try await parts.getter.getAll(query, operation: operation)
    }

    /// Writes through the put part.
    public func put(_ value: Value, in query: any Query, operation: any RepositoryOperation) async throws -> Value {
        try await parts.putter.put(value, in: query, operation: operation)
    }

    /// Writes through the put part.
    public func putAll(
        _ values: [Value],
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> [Value] {
        try await parts.putter.putAll(values, in: query, operation: operation)
    }

    /// Deletes through the delete part.
    public func delete(_ query: any Query, operation: any RepositoryOperation) async throws {
        try await parts.deleter.delete(query, operation: operation)
    }
}

// MARK: - Erasing types

extension RepositoryAssembler {
    /// Erases the type of a full repository.
    ///
    /// - Parameter repository: Any repository.
    public init(_ repository: some Repository<Value>) {
        self.init(get: repository, put: repository, delete: repository)
    }
}

/// The type-erased repository: an alias for ``RepositoryAssembler``.
public typealias AnyRepository<Value: Sendable> = RepositoryAssembler<Value>

extension RepositoryAssembler: RepositoryCapabilities {}
