/// A repository whose calls run through a chain of plugins.
///
/// Create one with `plugins(_:)` on any repository:
///
/// ```swift
/// let metrics = MetricsPlugin()
/// let users = CacheRepository(main: api, cache: memory).plugins([metrics])
/// ```
///
/// The plugins see each call with its operation (``PluginCall/operation``). The first plugin is the
/// outermost: it sees each call first and its outcome last. With no plugins, or none that takes part
/// (``PluginParticipation``), every call goes straight to the repository.
public struct PluggedRepository<Base: Sendable>: Sendable {
    /// The wrapped repository.
    public let base: Base

    /// The plugins, outermost first.
    public var plugins: [any StrataPlugin] { chain.plugins }

    /// The name plugins see in ``PluginCall/source``.
    public var name: String { chain.name }

    /// The plugins as calls run them.
    @usableFromInline let chain: PluginChain

    /// Wraps a repository with plugins.
    ///
    /// - Parameters:
    ///   - base: The repository every call finally reaches.
    ///   - plugins: The plugins, outermost first.
    ///   - name: The name plugins see; the repository's type name by default.
    public init(_ base: Base, plugins: [any StrataPlugin], name: String? = nil) {
        self.base = base
        chain = PluginChain(plugins, name: name, wrapping: Base.self, kind: .repository)
    }
}

extension PluggedRepository: GetRepository where Base: GetRepository {
    /// Reads through the plugins.
    @inlinable @inline(__always)
    nonisolated(nonsending) public func get(_ query: any Query, operation: any RepositoryOperation) async throws
        -> Base.Value
    {
        guard chain.observesCalls else {
            do { return try await base.get(query, operation: operation) } catch {
                throw chain.failure(.get, query, operation: operation, error)
            }
        }
        if chain.intercepts {
            return try await chain.intercept(.get, query, operation: operation) { [base] in
                try await base.get(query, operation: operation)
            }
        }
        if chain.counts { return try await countedGet(query, operation: operation).value }
        return try await chain.observe(.get, query, operation: operation) {
            try await base.get(query, operation: operation)
        }
    }

    /// Reads through the plugins and says how the read ended, so that counting plugins on an outer wrapping of this
    /// repository (`plugins(_:)` called again) count it as the repository told it, not as a hit. (Observing or
    /// intercepting plugins on the outer wrapping still take a read that returned as a hit, unless both wrappings
    /// have the same name.)
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: Which source to ask first and which to keep in sync.
    /// - Throws: What ``get(_:operation:)`` throws.
    @inlinable
    nonisolated(nonsending) public func getReportingOutcome(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> (value: Base.Value, outcome: CallOutcome) {
        guard chain.observesCalls else {
            do { return try await base.getReportingOutcome(query, operation: operation) } catch {
                throw chain.failure(.get, query, operation: operation, error)
            }
        }
        if !chain.intercepts, chain.counts { return try await countedGet(query, operation: operation) }
        // The plugins run the read in a trail of this repository's name: this one, which the repository reports to.
        return try await CallTrail.reportingOutcome(of: .get, source: chain.name) {
            try await get(query, operation: operation)
        }
    }

    /// A read counted by the plugins: the repository says how it ended, so no trail is bound, and no closure made
    /// (the repository is called from this frame).
    @inlinable @inline(__always)
    nonisolated(nonsending) func countedGet(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> (value: Base.Value, outcome: CallOutcome) {
        let started = chain.startCounting()
        do {
            let (value, outcome) = try await base.getReportingOutcome(query, operation: operation)
            chain.countReturned(.get, query, operationName: operation.name, outcome, started: started)
            return (value, outcome)
        } catch {
            throw chain.countThrew(.get, query, operation: operation, error, started: started)
        }
    }

    /// Reads through the plugins.
    @inlinable @inline(__always)
    public func getAll(_ query: any Query, operation: any RepositoryOperation) async throws -> [Base.Value] {
        guard chain.observesCalls else {
            do { return try await base.getAll(query, operation: operation) } catch {
                throw chain.failure(.getAll, query, operation: operation, error)
            }
        }
        if chain.intercepts {
            return try await chain.intercept(.getAll, query, operation: operation) { [base] in
                try await base.getAll(query, operation: operation)
            }
        }
        return try await chain.observe(.getAll, query, operation: operation) {
            try await base.getAll(query, operation: operation)
        }
    }
}

extension PluggedRepository: PutRepository where Base: PutRepository {
    /// Writes through the plugins.
    @inlinable @inline(__always)
    public func put(_ value: Base.Value, in query: any Query, operation: any RepositoryOperation) async throws
        -> Base.Value
    {
        guard chain.observesCalls else {
            do { return try await base.put(value, in: query, operation: operation) } catch {
                throw chain.failure(.put, query, operation: operation, value: value, error)
            }
        }
        if chain.intercepts {
            return try await chain.intercept(.put, query, operation: operation, value: value) { [base] in
                try await base.put(value, in: query, operation: operation)
            }
        }
        return try await chain.observe(.put, query, operation: operation, value: value) {
            try await base.put(value, in: query, operation: operation)
        }
    }

    /// Writes through the plugins.
    @inlinable @inline(__always)
    public func putAll(
        _ values: [Base.Value],
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> [Base.Value] {
        guard chain.observesCalls else {
            do { return try await base.putAll(values, in: query, operation: operation) } catch {
                throw chain.failure(.putAll, query, operation: operation, value: values, error)
            }
        }
        if chain.intercepts {
            return try await chain.intercept(.putAll, query, operation: operation, value: values) { [base] in
                try await base.putAll(values, in: query, operation: operation)
            }
        }
        return try await chain.observe(.putAll, query, operation: operation, value: values) {
            try await base.putAll(values, in: query, operation: operation)
        }
    }
}

extension PluggedRepository: DeleteRepository where Base: DeleteRepository {
    /// Deletes through the plugins.
    @inlinable @inline(__always)
    public func delete(_ query: any Query, operation: any RepositoryOperation) async throws {
        guard chain.observesCalls else {
            do { return try await base.delete(query, operation: operation) } catch {
                throw chain.failure(.delete, query, operation: operation, error)
            }
        }
        if chain.intercepts {
            return try await chain.intercept(.delete, query, operation: operation) { [base] in
                try await base.delete(query, operation: operation)
            }
        }
        try await chain.observe(.delete, query, operation: operation) {
            try await base.delete(query, operation: operation)
        }
    }
}

extension PluggedRepository: Repository where Base: Repository {}

extension PluggedRepository: RepositoryCapabilities {}
