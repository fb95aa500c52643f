/// A data source whose calls run through a chain of plugins.
///
/// Create one with `plugins(_:)` on any data source:
///
/// ```swift
/// let users = UsersAPI(client).plugins([
///     LoggingPlugin(level: .debug) { print($0.message) },
///     RetryPlugin(),
/// ])
/// ```
///
/// The first plugin is the outermost: it sees each call first and its outcome last. Conformances follow
/// the wrapped source: a plugged ``GetDataSource`` is a ``GetDataSource``, and so on; the source's capabilities
/// (origin, changes, entries with metadata) are forwarded. With no plugins, or none that takes part
/// (``PluginParticipation``), every call goes straight to the source.
public struct PluggedDataSource<Source: Sendable>: Sendable {
    /// The wrapped source.
    public let source: Source

    /// The plugins, outermost first.
    public var plugins: [any StrataPlugin] { chain.plugins }

    /// The name plugins see in ``PluginCall/source``.
    public var name: String { chain.name }

    /// The plugins as calls run them.
    @usableFromInline let chain: PluginChain

    /// Wraps a source with plugins.
    ///
    /// - Parameters:
    ///   - source: The source every call finally reaches.
    ///   - plugins: The plugins, outermost first.
    ///   - name: The name plugins see; the source's type name by default.
    public init(_ source: Source, plugins: [any StrataPlugin], name: String? = nil) {
        self.source = source
        let name = name ?? String(describing: Source.self)
        chain = PluginChain(plugins, attachment: PluginAttachment(name: name, kind: .dataSource))
    }

    /// Whether a plugin intercepts calls: they then run through ``run(_:_:value:_:)``.
    @inlinable var intercepts: Bool { chain.mode == .intercepts }

    /// Runs `body` through the plugins as middleware.
    @usableFromInline
    func run<R: Sendable>(
        _ method: PluginCall.Method,
        _ query: any Query,
        value: (any Sendable)? = nil,
        _ body: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        try await chain.intercept(PluginCall(method: method, query: query, source: name, value: value), body)
    }

    /// Runs `body` observed by the plugins, when they only observe: specialised for the call, not inlined.
    @inlinable @inline(never)
    func observe<R: Sendable>(
        _ method: PluginCall.Method,
        _ query: any Query,
        value: @autoclosure () -> (any Sendable)? = nil,
        _ body: () async throws -> R
    ) async throws -> R {
        let call = PluginCall(method: method, query: query, source: name, value: value())
        return try await CallTrail.observe(call, next: body) { chain.report($0, $1) }
    }

    /// Reports a call that threw to the plugins that observe failures, and returns the error to throw.
    @usableFromInline
    func failure(
        _ method: PluginCall.Method,
        _ query: any Query,
        value: @autoclosure () -> (any Sendable)? = nil,
        _ error: any Error
    ) -> any Error {
        if chain.mode == .failures {
            chain.reportFailure(PluginCall(method: method, query: query, source: name, value: value()), error)
        }
        return error
    }
}

extension PluggedDataSource: DataSourceCapabilities where Source: DataSourceCapabilities {
    /// The wrapped source's origin.
    public var origin: DataOrigin { source.origin }

    /// The wrapped source's changes.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> { source.changes(forKey: key) }
}

extension PluggedDataSource: GetDataSource where Source: GetDataSource {
    /// Reads through the plugins.
    @inlinable @inline(__always)
    public func get(_ query: any Query) async throws -> Source.Value {
        guard chain.observesCalls else {
            do { return try await source.get(query) } catch { throw failure(.get, query, error) }
        }
        if intercepts { return try await run(.get, query) { [source] in try await source.get(query) } }
        return try await observe(.get, query) { try await source.get(query) }
    }

    /// Reads through the plugins.
    @inlinable @inline(__always)
    public func getAll(_ query: any Query) async throws -> [Source.Value] {
        guard chain.observesCalls else {
            do { return try await source.getAll(query) } catch { throw failure(.getAll, query, error) }
        }
        if intercepts { return try await run(.getAll, query) { [source] in try await source.getAll(query) } }
        return try await observe(.getAll, query) { try await source.getAll(query) }
    }

    /// Reads the entry through the plugins; they see a ``PluginCall/Method/get``.
    @inlinable @inline(__always)
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Source.Value> {
        guard chain.observesCalls else {
            do { return try await source.getEntry(query) } catch { throw failure(.get, query, error) }
        }
        if intercepts { return try await run(.get, query) { [source] in try await source.getEntry(query) } }
        return try await observe(.get, query) { try await source.getEntry(query) }
    }

    /// Reads the entries through the plugins; they see a ``PluginCall/Method/getAll``.
    @inlinable @inline(__always)
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Source.Value>] {
        guard chain.observesCalls else {
            do { return try await source.getAllEntries(query) } catch { throw failure(.getAll, query, error) }
        }
        if intercepts { return try await run(.getAll, query) { [source] in try await source.getAllEntries(query) } }
        return try await observe(.getAll, query) { try await source.getAllEntries(query) }
    }

    /// Reads conditionally through the plugins; they see a ``PluginCall/Method/get``.
    @inlinable @inline(__always)
    public func getIfModified(
        _ query: any Query,
        since metadata: EntryMetadata
    ) async throws -> ConditionalRead<Source.Value> {
        guard chain.observesCalls else {
            do { return try await source.getIfModified(query, since: metadata) } catch {
                throw failure(.get, query, error)
            }
        }
        if intercepts {
            return try await run(.get, query) { [source] in try await source.getIfModified(query, since: metadata) }
        }
        return try await observe(.get, query) { try await source.getIfModified(query, since: metadata) }
    }
}

extension PluggedDataSource: PutDataSource where Source: PutDataSource {
    /// Writes through the plugins.
    @inlinable @inline(__always)
    public func put(_ value: Source.Value, in query: any Query) async throws -> Source.Value {
        guard chain.observesCalls else {
            do { return try await source.put(value, in: query) } catch {
                throw failure(.put, query, value: value, error)
            }
        }
        if intercepts {
            return try await run(.put, query, value: value) { [source] in try await source.put(value, in: query) }
        }
        return try await observe(.put, query, value: value) { try await source.put(value, in: query) }
    }

    /// Writes through the plugins.
    @inlinable @inline(__always)
    public func putAll(_ values: [Source.Value], in query: any Query) async throws -> [Source.Value] {
        guard chain.observesCalls else {
            do { return try await source.putAll(values, in: query) } catch {
                throw failure(.putAll, query, value: values, error)
            }
        }
        if intercepts {
            return try await run(.putAll, query, value: values) { [source] in try await source.putAll(values, in: query)
            }
        }
        return try await observe(.putAll, query, value: values) { try await source.putAll(values, in: query) }
    }

    /// Writes the entry through the plugins; they see a ``PluginCall/Method/put`` of its value.
    @inlinable @inline(__always)
    public func putEntry(_ entry: StoredEntry<Source.Value>, in query: any Query) async throws -> Source.Value {
        guard chain.observesCalls else {
            do { return try await source.putEntry(entry, in: query) } catch {
                throw failure(.put, query, value: entry.value, error)
            }
        }
        if intercepts {
            return try await run(.put, query, value: entry.value) { [source] in
                try await source.putEntry(entry, in: query)
            }
        }
        return try await observe(.put, query, value: entry.value) { try await source.putEntry(entry, in: query) }
    }

    /// Writes the entries through the plugins; they see a ``PluginCall/Method/putAll`` of their values.
    @inlinable @inline(__always)
    public func putAllEntries(
        _ entries: [StoredEntry<Source.Value>],
        in query: any Query
    ) async throws -> [Source.Value] {
        guard chain.observesCalls else {
            do { return try await source.putAllEntries(entries, in: query) } catch {
                throw failure(.putAll, query, value: entries.map(\.value), error)
            }
        }
        if intercepts {
            return try await run(.putAll, query, value: entries.map(\.value)) { [source] in
                try await source.putAllEntries(entries, in: query)
            }
        }
        return try await observe(.putAll, query, value: entries.map(\.value)) {
            try await source.putAllEntries(entries, in: query)
        }
    }

    /// Renews the entry's metadata in the wrapped source; plugins do not see it (no value is read or written).
    public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        try await source.renewMetadata(metadata, in: query)
    }
}

extension PluggedDataSource: DeleteDataSource where Source: DeleteDataSource {
    /// Deletes through the plugins.
    @inlinable @inline(__always)
    public func delete(_ query: any Query) async throws {
        guard chain.observesCalls else {
            do { return try await source.delete(query) } catch { throw failure(.delete, query, error) }
        }
        if intercepts { return try await run(.delete, query) { [source] in try await source.delete(query) } }
        try await observe(.delete, query) { try await source.delete(query) }
    }
}

extension PluggedDataSource: DataSource where Source: DataSource {}
