/// A get part's calls, as closures over the part (``AssemblerParts``).
@usableFromInline
struct RepositoryReads<Value: Sendable>: Sendable {
    @usableFromInline let get:
        nonisolated(nonsending) @Sendable (any Query, any RepositoryOperation) async throws -> Value
    @usableFromInline let getAll:
        nonisolated(nonsending) @Sendable (any Query, any RepositoryOperation) async throws -> [Value]
    @usableFromInline let getReportingOutcome:
        nonisolated(nonsending) @Sendable (any Query, any RepositoryOperation) async throws
            -> (value: Value, outcome: CallOutcome)

    @inlinable
    init(_ repository: some GetRepository<Value>) {
        get = { try await repository.get($0, operation: $1) }
        getAll = { try await repository.getAll($0, operation: $1) }
        getReportingOutcome = { try await repository.getReportingOutcome($0, operation: $1) }
    }
}

/// A put part's calls, as closures over the part (``AssemblerParts``).
@usableFromInline
struct RepositoryWrites<Value: Sendable>: Sendable {
    @usableFromInline let put:
        nonisolated(nonsending) @Sendable (Value, any Query, any RepositoryOperation) async throws -> Value
    @usableFromInline let putAll:
        nonisolated(nonsending) @Sendable ([Value], any Query, any RepositoryOperation) async throws -> [Value]

    @inlinable
    init(_ repository: some PutRepository<Value>) {
        put = { try await repository.put($0, in: $1, operation: $2) }
        putAll = { try await repository.putAll($0, in: $1, operation: $2) }
    }
}

/// A delete part's call, as a closure over the part (``AssemblerParts``).
@usableFromInline
typealias RepositoryDeletes =
    nonisolated(nonsending) @Sendable (any Query, any RepositoryOperation) async throws -> Void
