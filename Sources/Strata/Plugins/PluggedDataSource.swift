/// A data source whose calls run through a chain of plugins.
///
/// Create one with `plugins(_:)` on any data source:
///
/// ```swift
/// let users = UsersAPI(client).plugins([
///     LoggingPlugin(minimumLevel: .debug) { print($0.message) },
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
        chain = PluginChain(plugins, name: name, wrapping: Source.self, kind: .dataSource)
    }
}

extension PluggedDataSource: DataSourceCapabilities where Source: DataSourceCapabilities {
    /// The wrapped source's origin.
    public var origin: DataOrigin { source.origin }

    /// The wrapped source's changes.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> { source.changes(forKey: key) }

    /// Whether the wrapped source reads without blocking.
    @inlinable public var readsWithoutBlocking: Bool { source.readsWithoutBlocking }
}

extension PluggedDataSource: GetDataSource where Source: GetDataSource {
    /// Reads through the plugins.
    @inlinable @inline(__always)
    nonisolated(nonsending) public func get(_ query: any Query) async throws -> Source.Value {
        guard chain.observesCalls else {
            do { return try await source.get(query) } catch { throw chain.failure(.get, query, error) }
        }
        if chain.intercepts {
            return try await chain.intercept(.get, query) { [source] in try await source.get(query) }
        }
        if chain.counts {
            // The hottest call counted inline, without a closure: the source is called from this frame.
            let started = chain.startCounting()
            do {
                let value = try await source.get(query)
                chain.countReturned(.get, query, operationName: nil, .hit, started: started)
                return value
            } catch {
                throw chain.countThrew(.get, query, operation: nil, error, started: started)
            }
        }
        return try await chain.observe(.get, query) { try await source.get(query) }
    }

    /// Reads through the plugins.
    @inlinable @inline(__always)
    public func getAll(_ query: any Query) async throws -> [Source.Value] {
        guard chain.observesCalls else {
            do { return try await source.getAll(query) } catch { throw chain.failure(.getAll, query, error) }
        }
        if chain.intercepts {
            return try await chain.intercept(.getAll, query) { [source] in try await source.getAll(query) }
        }
        return try await chain.observe(.getAll, query) { try await source.getAll(query) }
    }

    /// Reads the entry through the plugins; they see a ``PluginCall/Method/get``.
    @inlinable @inline(__always)
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Source.Value> {
        guard chain.observesCalls else {
            do { return try await source.getEntry(query) } catch { throw chain.failure(.get, query, error) }
        }
        if chain.intercepts {
            return try await chain.intercept(.get, query) { [source] in try await source.getEntry(query) }
        }
        return try await chain.observe(.get, query) { try await source.getEntry(query) }
    }

    /// Reads the entries through the plugins; they see a ``PluginCall/Method/getAll``.
    @inlinable @inline(__always)
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Source.Value>] {
        guard chain.observesCalls else {
            do { return try await source.getAllEntries(query) } catch { throw chain.failure(.getAll, query, error) }
        }
        if chain.intercepts {
            return try await chain.intercept(.getAll, query) { [source] in try await source.getAllEntries(query) }
        }
        return try await chain.observe(.getAll, query) { try await source.getAllEntries(query) }
    }

    /// Reads conditionally through the plugins; they see a ``PluginCall/Method/get``.
    @inlinable @inline(__always)
    public func getIfModified(
        _ query: any Query,
        since metadata: EntryMetadata
    ) async throws -> ConditionalRead<Source.Value> {
        guard chain.observesCalls else {
            do { return try await source.getIfModified(query, since: metadata) } catch {
                throw chain.failure(.get, query, error)
            }
        }
        if chain.intercepts {
            return try await chain.intercept(.get, query, since: metadata) { [source] in
                try await source.getIfModified(query, since: metadata)
            }
        }
        return try await chain.observe(.get, query) { try await source.getIfModified(query, since: metadata) }
    }
}

extension PluggedDataSource: PutDataSource where Source: PutDataSource {
    /// Writes through the plugins.
    @inlinable @inline(__always)
    public func put(_ value: Source.Value, in query: any Query) async throws -> Source.Value {
        guard chain.observesCalls else {
            do { return try await source.put(value, in: query) } catch {
                throw chain.failure(.put, query, value: value, error)
            }
        }
        if chain.intercepts {
            return try await chain.intercept(.put, query, value: value) { [source] in
                try await source.put(value, in: query)
            }
        }
        return try await chain.observe(.put, query, value: value) { try await source.put(value, in: query) }
    }

    /// Writes through the plugins.
    @inlinable @inline(__always)
    public func putAll(_ values: [Source.Value], in query: any Query) async throws -> [Source.Value] {
        guard chain.observesCalls else {
            do { return try await source.putAll(values, in: query) } catch {
                throw chain.failure(.putAll, query, value: values, error)
            }
        }
        if chain.intercepts {
            return try await chain.intercept(.putAll, query, value: values) { [source] in
                try await source.putAll(values, in: query)
            }
        }
        return try await chain.observe(.putAll, query, value: values) { try await source.putAll(values, in: query) }
    }

    /// Writes the entry through the plugins; they see a ``PluginCall/Method/put`` of its value.
    @inlinable @inline(__always)
    public func putEntry(_ entry: StoredEntry<Source.Value>, in query: any Query) async throws -> Source.Value {
        guard chain.observesCalls else {
            do { return try await source.putEntry(entry, in: query) } catch {
                throw chain.failure(.put, query, value: entry.value, error)
            }
        }
        if chain.intercepts {
            return try await chain.intercept(.put, query, value: entry.value) { [source] in
                try await source.putEntry(entry, in: query)
            }
        }
        return try await chain.observe(.put, query, value: entry.value) { try await source.putEntry(entry, in: query) }
    }

    /// Writes the entries through the plugins; they see a ``PluginCall/Method/putAll`` of their values.
    @inlinable @inline(__always)
    public func putAllEntries(
        _ entries: [StoredEntry<Source.Value>],
        in query: any Query
    ) async throws -> [Source.Value] {
        guard chain.observesCalls else {
            do { return try await source.putAllEntries(entries, in: query) } catch {
                throw chain.failure(.putAll, query, value: entries.map { $0.value }, error)
            }
        }
        if chain.intercepts {
            return try await chain.intercept(.putAll, query, value: entries.map { $0.value }) { [source] in
                try await source.putAllEntries(entries, in: query)
            }
        }
        return try await chain.observe(.putAll, query, value: entries.map { $0.value }) {
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
            do { return try await source.delete(query) } catch { throw chain.failure(.delete, query, error) }
        }
        if chain.intercepts {
            return try await chain.intercept(.delete, query) { [source] in try await source.delete(query) }
        }
        try await chain.observe(.delete, query) { try await source.delete(query) }
    }
}

extension PluggedDataSource: DataSource where Source: DataSource {}
