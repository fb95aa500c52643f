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
/// outermost: it sees each call first and its outcome last. With no plugins every call goes straight to
/// the repository.
public struct PluggedRepository<Base: Sendable>: Sendable {
    /// The wrapped repository.
    public let base: Base

    /// The plugins, outermost first.
    public let plugins: [any StrataPlugin]

    /// The name plugins see in ``PluginCall/source``.
    public let name: String

    /// Wraps a repository with plugins.
    ///
    /// - Parameters:
    ///   - base: The repository every call finally reaches.
    ///   - plugins: The plugins, outermost first.
    ///   - name: The name plugins see; the repository's type name by default.
    public init(_ base: Base, plugins: [any StrataPlugin], name: String? = nil) {
        self.base = base
        self.plugins = plugins
        self.name = name ?? String(describing: Base.self)
    }

    /// Runs `body` through the plugins.
    func run<R: Sendable>(
        _ method: PluginCall.Method,
        _ query: any Query,
        _ operation: any RepositoryOperation,
        value: (any Sendable)? = nil,
        _ body: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        let call = PluginCall(method: method, query: query, operation: operation, source: name, value: value)
        return try await runPlugins(plugins[...], call, body)
    }
}

extension PluggedRepository: GetRepository where Base: GetRepository {
    /// Reads through the plugins.
    public func get(_ query: any Query, operation: any RepositoryOperation) async throws -> Base.Value {
        if plugins.isEmpty { return try await base.get(query, operation: operation) }
        return try await run(.get, query, operation) { [base] in try await base.get(query, operation: operation) }
    }

    /// Reads through the plugins.
    public func getAll(_ query: any Query, operation: any RepositoryOperation) async throws -> [Base.Value] {
        if plugins.isEmpty { return try await base.getAll(query, operation: operation) }
        return try await run(.getAll, query, operation) { [base] in
            try await base.getAll(query, operation: operation)
        }
    }
}

extension PluggedRepository: PutRepository where Base: PutRepository {
    /// Writes through the plugins.
    public func put(_ value: Base.Value, in query: any Query, operation: any RepositoryOperation) async throws
        -> Base.Value
    {
        if plugins.isEmpty { return try await base.put(value, in: query, operation: operation) }
        return try await run(.put, query, operation, value: value) { [base] in
            try await base.put(value, in: query, operation: operation)
        }
    }

    /// Writes through the plugins.
    public func putAll(
        _ values: [Base.Value],
        in query: any Query,
        operation: any RepositoryOperation
    ) async throws -> [Base.Value] {
        if plugins.isEmpty { return try await base.putAll(values, in: query, operation: operation) }
        return try await run(.putAll, query, operation, value: values) { [base] in
            try await base.putAll(values, in: query, operation: operation)
        }
    }
}

extension PluggedRepository: DeleteRepository where Base: DeleteRepository {
    /// Deletes through the plugins.
    public func delete(_ query: any Query, operation: any RepositoryOperation) async throws {
        if plugins.isEmpty { return try await base.delete(query, operation: operation) }
        try await run(.delete, query, operation) { [base] in try await base.delete(query, operation: operation) }
    }
}

extension PluggedRepository: Repository where Base: Repository {}

extension PluggedRepository: RepositoryCapabilities {}
