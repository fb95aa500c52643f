/// A full ``Repository`` assembled from separate get, put and delete parts.
///
/// It also erases the types of its parts, so it is the way to store repositories of different types in
/// one property (``AnyRepository``):
///
/// ```swift
/// let users: AnyRepository<User> = AnyRepository(CacheRepository(main: api, cache: memory))
/// ```
///
/// Erased this way, a call still runs each part's code specialised for its type: the initializer is inlined where
/// the assembler is made, and keeps each part's calls as closures made there. Stored as `any GetRepository<User>`
/// instead, a call reaches the part through its conformance, the library's generic code unspecialised: several
/// times slower on a memory-cache hit.
public struct RepositoryAssembler<Value: Sendable>: Repository {
    @usableFromInline let parts: AssemblerParts<RepositoryReads<Value>, RepositoryWrites<Value>, RepositoryDeletes>

    /// Assembles a repository from three parts.
    ///
    /// - Parameters:
    ///   - get: Answers `get` and `getAll`.
    ///   - put: Answers `put` and `putAll`.
    ///   - delete: Answers `delete`.
    @inlinable
    public init(get: some GetRepository<Value>, put: some PutRepository<Value>, delete: some DeleteRepository) {
        parts = AssemblerParts(
            getter: RepositoryReads(get),
            putter: RepositoryWrites(put),
            deleter: { try await delete.delete($0, operation: $1) }
        )
    }

    /// Reads through the get part.
    @inlinable
    nonisolated(nonsending) public func get(_ query: any Query, operation: any RepositoryOperation) async throws
        -> Value
    {
        try await parts.getter.get(query, operation)
    }

    /// Reads through the get part.
    @inlinable
    nonisolated(nonsending) public func getAll(_ query: any Query, operation: any RepositoryOperation) async throws
        -> [Value]
    {
        try await parts.getter.getAll(query, operation)
    }

    /// Reads through the get part, which says how the read ended.
    @inlinable
    nonisolated(nonsending) public func getReportingOutcome(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> (value: Value, outcome: CallOutcome) {
        try await parts.getter.getReportingOutcome(query, operation)
    }

    /// Writes through the put part.
    @inlinable
    nonisolated(nonsending) public func put(
        _ value: Value,
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> Value {
        try await parts.putter.put(value, query, operation)
    }

    /// Writes through the put part.
    @inlinable
    nonisolated(nonsending) public func putAll(
        _ values: [Value],
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> [Value] {
        try await parts.putter.putAll(values, query, operation)
    }

    /// Deletes through the delete part.
    @inlinable
    nonisolated(nonsending) public func delete(_ query: any Query, operation: any RepositoryOperation) async throws {
        try await parts.deleter(query, operation)
    }
}

// MARK: - Erasing types

extension RepositoryAssembler {
    /// Erases the type of a full repository.
    ///
    /// - Parameter repository: Any repository.
    @inlinable
    public init(_ repository: some Repository<Value>) {
        self.init(get: repository, put: repository, delete: repository)
    }
}

/// The type-erased repository: an alias for ``RepositoryAssembler``.
public typealias AnyRepository<Value: Sendable> = RepositoryAssembler<Value>

extension RepositoryAssembler: RepositoryCapabilities {}
