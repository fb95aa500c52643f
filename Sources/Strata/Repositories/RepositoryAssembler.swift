/// A full ``Repository`` assembled from separate get, put and delete parts.
///
/// It also erases the types of its parts, so it is the way to store repositories of different types in
/// one property.
public struct RepositoryAssembler<Value: Sendable>: Repository {
    private let getter: any GetRepository<Value>
    private let putter: any PutRepository<Value>
    private let deleter: any DeleteRepository

    /// Assembles a repository from three parts.
    ///
    /// - Parameters:
    ///   - get: Answers `get` and `getAll`.
    ///   - put: Answers `put` and `putAll`.
    ///   - delete: Answers `delete`.
    public init(
        get: some GetRepository<Value>,
        put: some PutRepository<Value>,
        delete: some DeleteRepository
    ) {
        self.getter = get
        self.putter = put
        self.deleter = delete
    }

    /// Erases the type of a full repository.
    ///
    /// - Parameter repository: Any repository.
    public init(_ repository: some Repository<Value>) {
        self.init(get: repository, put: repository, delete: repository)
    }

    /// Reads through the get part.
    public func get(_ query: any Query, operation: any RepositoryOperation) async throws -> Value {
        try await getter.get(query, operation: operation)
    }

    /// Reads through the get part.
    public func getAll(_ query: any Query, operation: any RepositoryOperation) async throws -> [Value] {
        try await getter.getAll(query, operation: operation)
    }

    /// Writes through the put part.
    public func put(_ value: Value, in query: any Query, operation: any RepositoryOperation) async throws -> Value {
        try await putter.put(value, in: query, operation: operation)
    }

    /// Writes through the put part.
    public func putAll(
        _ values: [Value],
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> [Value] {
        try await putter.putAll(values, in: query, operation: operation)
    }

    /// Deletes through the delete part.
    public func delete(_ query: any Query, operation: any RepositoryOperation) async throws {
        try await deleter.delete(query, operation: operation)
    }
}

/// The type-erased repository: an alias for ``RepositoryAssembler``.
public typealias AnyRepository<Value: Sendable> = RepositoryAssembler<Value>

extension RepositoryAssembler: RepositoryCapabilities {}
