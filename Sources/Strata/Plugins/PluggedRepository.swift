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
        let name = name ?? String(describing: Base.self)
        chain = PluginChain(plugins, attachment: PluginAttachment(name: name, kind: .repository))
    }

    /// Whether a plugin intercepts calls: they then run through ``run(_:_:_:value:_:)``.
    @inlinable var intercepts: Bool { chain.mode == .intercepts }

    /// Runs `body` through the plugins as middleware.
    @usableFromInline
    func run<R: Sendable>(
        _ method: PluginCall.Method,
        _ query: any Query,
        _ operation: any RepositoryOperation,
        value: (any Sendable)? = nil,
        _ body: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        let call = PluginCall(method: method, query: query, operation: operation, source: name, value: value)
        return try await chain.intercept(call, body)
    }

    /// Runs `body` observed by the plugins, when they only observe: specialised for the call, not inlined.
    @inlinable @inline(never)
    func observe<R: Sendable>(
        _ method: PluginCall.Method,
        _ query: any Query,
        _ operation: any RepositoryOperation,
        value: @autoclosure () -> (any Sendable)? = nil,
        _ body: () async throws -> R
    ) async throws -> R {
        let call = PluginCall(method: method, query: query, operation: operation, source: name, value: value())
        return try await CallTrail.observe(call, next: body) { chain.report($0, $1) }
    }

    /// Reports a call that threw to the plugins that observe failures, and returns the error to throw.
    @usableFromInline
    func failure(
        _ method: PluginCall.Method,
        _ query: any Query,
        _ operation: any RepositoryOperation,
        value: @autoclosure () -> (any Sendable)? = nil,
        _ error: any Error
    ) -> any Error {
        if chain.mode == .failures {
            chain.reportFailure(
                PluginCall(method: method, query: query, operation: operation, source: name, value: value()),
                error
            )
        }
        return error
    }
}

extension PluggedRepository: GetRepository where Base: GetRepository {
    /// Reads through the plugins.
    @inlinable @inline(__always)
    public func get(_ query: any Query, operation: any RepositoryOperation) async throws -> Base.Value {
        guard chain.observesCalls else {
            do { return try await base.get(query, operation: operation) } catch {
                throw failure(.get, query, operation, error)
            }
        }
        if intercepts {
            return try await run(.get, query, operation) { [base] in try await base.get(query, operation: operation) }
        }
        return try await observe(.get, query, operation) { try await base.get(query, operation: operation) }
    }

    /// Reads through the plugins.
    @inlinable @inline(__always)
    public func getAll(_ query: any Query, operation: any RepositoryOperation) async throws -> [Base.Value] {
        guard chain.observesCalls else {
            do { return try await base.getAll(query, operation: operation) } catch {
                throw failure(.getAll, query, operation, error)
            }
        }
        if intercepts {
            return try await run(.getAll, query, operation) { [base] in
                try await base.getAll(query, operation: operation)
            }
        }
        return try await observe(.getAll, query, operation) { try await base.getAll(query, operation: operation) }
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
                throw failure(.put, query, operation, value: value, error)
            }
        }
        if intercepts {
            return try await run(.put, query, operation, value: value) { [base] in
                try await base.put(value, in: query, operation: operation)
            }
        }
        return try await observe(.put, query, operation, value: value) {
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
                throw failure(.putAll, query, operation, value: values, error)
            }
        }
        if intercepts {
            return try await run(.putAll, query, operation, value: values) { [base] in
                try await base.putAll(values, in: query, operation: operation)
            }
        }
        return try await observe(.putAll, query, operation, value: values) {
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
                throw failure(.delete, query, operation, error)
            }
        }
        if intercepts {
            return try await run(.delete, query, operation) { [base] in
                try await base.delete(query, operation: operation)
            }
        }
        try await observe(.delete, query, operation) { try await base.delete(query, operation: operation) }
    }
}

extension PluggedRepository: Repository where Base: Repository {}

extension PluggedRepository: RepositoryCapabilities {}
