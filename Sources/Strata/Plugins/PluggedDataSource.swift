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
/// (origin, changes, entries with metadata) are forwarded. With no plugins every call goes straight to the source.
public struct PluggedDataSource<Source: Sendable>: Sendable {
    /// The wrapped source.
    public let source: Source

    /// The plugins, outermost first.
    public let plugins: [any StrataPlugin]

    /// The name plugins see in ``PluginCall/source``.
    public let name: String

    /// Wraps a source with plugins.
    ///
    /// - Parameters:
    ///   - source: The source every call finally reaches.
    ///   - plugins: The plugins, outermost first.
    ///   - name: The name plugins see; the source's type name by default.
    public init(_ source: Source, plugins: [any StrataPlugin], name: String? = nil) {
        self.source = source
        self.plugins = plugins
        self.name = name ?? String(describing: Source.self)
    }

    /// Runs `body` through the plugins, or directly when there are none.
    func run<R: Sendable>(
        _ method: PluginCall.Method,
        _ query: any Query,
        value: (any Sendable)? = nil,
        _ body: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        if plugins.isEmpty { return try await body() }
        let call = PluginCall(method: method, query: query, source: name, value: value)
        return try await runPlugins(plugins[...], call, body)
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
    public func get(_ query: any Query) async throws -> Source.Value {
        if plugins.isEmpty { return try await source.get(query) }
        return try await run(.get, query) { [source] in try await source.get(query) }
    }

    /// Reads through the plugins.
    public func getAll(_ query: any Query) async throws -> [Source.Value] {
        if plugins.isEmpty { return try await source.getAll(query) }
        return try await run(.getAll, query) { [source] in try await source.getAll(query) }
    }

    /// Reads the entry through the plugins; they see a ``PluginCall/Method/get``.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Source.Value> {
        if plugins.isEmpty { return try await source.getEntry(query) }
        return try await run(.get, query) { [source] in try await source.getEntry(query) }
    }

    /// Reads the entries through the plugins; they see a ``PluginCall/Method/getAll``.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Source.Value>] {
        if plugins.isEmpty { return try await source.getAllEntries(query) }
        return try await run(.getAll, query) { [source] in try await source.getAllEntries(query) }
    }

    /// Reads conditionally through the plugins; they see a ``PluginCall/Method/get``.
    public func getIfModified(
        _ query: any Query,
        since metadata: EntryMetadata
    ) async throws -> ConditionalRead<Source.Value> {
        if plugins.isEmpty { return try await source.getIfModified(query, since: metadata) }
        return try await run(.get, query) { [source] in try await source.getIfModified(query, since: metadata) }
    }
}

extension PluggedDataSource: PutDataSource where Source: PutDataSource {
    /// Writes through the plugins.
    public func put(_ value: Source.Value, in query: any Query) async throws -> Source.Value {
        if plugins.isEmpty { return try await source.put(value, in: query) }
        return try await run(.put, query, value: value) { [source] in try await source.put(value, in: query) }
    }

    /// Writes through the plugins.
    public func putAll(_ values: [Source.Value], in query: any Query) async throws -> [Source.Value] {
        if plugins.isEmpty { return try await source.putAll(values, in: query) }
        return try await run(.putAll, query, value: values) { [source] in
            try await source.putAll(values, in: query)
        }
    }

    /// Writes the entry through the plugins; they see a ``PluginCall/Method/put`` of its value.
    public func putEntry(_ entry: StoredEntry<Source.Value>, in query: any Query) async throws -> Source.Value {
        if plugins.isEmpty { return try await source.putEntry(entry, in: query) }
        return try await run(.put, query, value: entry.value) { [source] in try await source.putEntry(entry, in: query)
        }
    }

    /// Writes the entries through the plugins; they see a ``PluginCall/Method/putAll`` of their values.
    public func putAllEntries(
        _ entries: [StoredEntry<Source.Value>],
        in query: any Query
    ) async throws -> [Source.Value] {
        if plugins.isEmpty { return try await source.putAllEntries(entries, in: query) }
        return try await run(.putAll, query, value: entries.map(\.value)) { [source] in
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
    public func delete(_ query: any Query) async throws {
        if plugins.isEmpty { return try await source.delete(query) }
        try await run(.delete, query) { [source] in try await source.delete(query) }
    }
}

extension PluggedDataSource: DataSource where Source: DataSource {}
