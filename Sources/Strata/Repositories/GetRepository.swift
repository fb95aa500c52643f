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

    /// Reads as ``get(_:operation:)`` does, and says how the read ended: ``CallOutcome/hit`` when the first source
    /// asked answered, ``CallOutcome/miss`` when a later one did, ``CallOutcome/staleServed`` for a stale cached
    /// value served.
    ///
    /// What plugins that count calls (``PluginParticipation/counts(_:timingOneIn:)``) report for a repository read.
    /// By default the read runs inside a ``CallTrail``, whose steps come from plugins on the sources (without them
    /// every read that returns is a hit); a repository that knows where its value came from says it here, at no
    /// cost: ``CacheRepository`` does.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: Which source to ask first and which to keep in sync.
    /// - Throws: What ``get(_:operation:)`` throws.
    func getReportingOutcome(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> (value: Value, outcome: CallOutcome)
}

extension GetRepository {
    /// Reads inside a ``CallTrail`` and returns the outcome it gives.
    public func getReportingOutcome(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> (value: Value, outcome: CallOutcome) {
        try await CallTrail.reportingOutcome(of: .get) { try await get(query, operation: operation) }
    }
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
