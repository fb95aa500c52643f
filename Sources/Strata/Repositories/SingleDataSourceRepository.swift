/// A repository over one data source; the operation of each call is ignored.
///
/// Use it where an API expects a repository but there is only one source, such as a network API
/// without a cache.
public struct SingleDataSourceRepository<Source: Sendable>: Sendable {
    /// The data source every call goes to.
    public let source: Source

    /// Announces every write and delete made through this repository (and its copies) to its streams.
    public let changeBroadcaster = ChangeBroadcaster()

    /// Creates a repository over one data source.
    ///
    /// - Parameter source: The source that answers every call.
    public init(_ source: Source) {
        self.source = source
    }
}

extension SingleDataSourceRepository: GetRepository where Source: GetDataSource {
    /// Reads from the source.
    public func get(_ query: any Query, operation: any RepositoryOperation) async throws -> Source.Value {
        try await source.get(query)
    }

    /// Reads from the source.
    public func getAll(_ query: any Query, operation: any RepositoryOperation) async throws -> [Source.Value] {
        try await source.getAll(query)
    }

    /// Reads from the source: a value is a hit, as its one source answered.
    public func getReportingOutcome(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> (value: Source.Value, outcome: CallOutcome) {
        (try await source.get(query), .hit)
    }
}

extension SingleDataSourceRepository: PutRepository where Source: PutDataSource {
    /// Writes to the source; observers are told once the write happened, never after a failed one.
    public func put(
        _ value: Source.Value,
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> Source.Value {
        let stored = try await source.put(value, in: query)
        changeBroadcaster.publishWrite(to: query)
        return stored
    }

    /// Writes to the source; observers are told once the write happened, never after a failed one.
    public func putAll(
        _ values: [Source.Value],
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> [Source.Value] {
        let stored = try await source.putAll(values, in: query)
        changeBroadcaster.publishWrite(to: query)
        return stored
    }
}

extension SingleDataSourceRepository: DeleteRepository where Source: DeleteDataSource {
    /// Deletes from the source; observers are told once the deletion happened, never after a failed one.
    public func delete(_ query: any Query, operation: any RepositoryOperation) async throws {
        try await source.delete(query)
        changeBroadcaster.publishDeletion(of: query)
    }
}

extension SingleDataSourceRepository: Repository where Source: DataSource {}

extension SingleDataSourceRepository: RepositoryCapabilities {}
