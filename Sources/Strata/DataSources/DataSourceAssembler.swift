/// A full ``DataSource`` assembled from separate get, put and delete parts.
///
/// ```swift
/// let users = DataSourceAssembler(get: api, put: api.plugins([RetryPlugin()]), delete: api)
/// ```
///
/// It also erases the types of its parts, so it is the way to store sources of different types in one
/// property (``AnyDataSource``). Capabilities are forwarded: the origin, entries and conditional reads of the get
/// part, the changes and metadata writes of the put part (where writes happen). As for ``RepositoryAssembler``, a
/// call runs each part's code specialised for its type, where an existential (`any GetDataSource<User>`) would run
/// it generic.
public struct DataSourceAssembler<Value: Sendable>: DataSource {
    @usableFromInline let parts: AssemblerParts<DataSourceReads<Value>, DataSourceWrites<Value>, DataSourceDeletes>

    /// Assembles a data source from three parts.
    ///
    /// - Parameters:
    ///   - get: Answers `get` and `getAll`.
    ///   - put: Answers `put` and `putAll`.
    ///   - delete: Answers `delete`.
    @inlinable
    public init(get: some GetDataSource<Value>, put: some PutDataSource<Value>, delete: some DeleteDataSource) {
        parts = AssemblerParts(
            getter: DataSourceReads(get),
            putter: DataSourceWrites(put),
            deleter: { try await delete.delete($0) }
        )
    }

    /// Reads through the get part.
    @inlinable
    nonisolated(nonsending) public func get(_ query: any Query) async throws -> Value {
        try await parts.getter.get(query)
    }

    /// Reads through the get part.
    @inlinable
    nonisolated(nonsending) public func getAll(_ query: any Query) async throws -> [Value] {
        try await parts.getter.getAll(query)
    }

    /// Writes through the put part.
    @inlinable
    nonisolated(nonsending) public func put(_ value: Value, in query: any Query) async throws -> Value {
        try await parts.putter.put(value, query)
    }

    /// Writes through the put part.
    @inlinable
    nonisolated(nonsending) public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        try await parts.putter.putAll(values, query)
    }

    /// The get part's origin.
    @inlinable public var origin: DataOrigin { parts.getter.origin() }

    /// Whether the get part reads without blocking.
    @inlinable public var readsWithoutBlocking: Bool { parts.getter.readsWithoutBlocking() }

    /// The put part's changes: writes happen there.
    @inlinable
    public func changes(forKey key: String?) -> AsyncStream<DataChange> { parts.putter.changes(key) }

    /// Reads the entry through the get part.
    @inlinable
    nonisolated(nonsending) public func getEntry(_ query: any Query) async throws -> StoredEntry<Value> {
        try await parts.getter.getEntry(query)
    }

    /// Reads the entries through the get part.
    @inlinable
    nonisolated(nonsending) public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
        try await parts.getter.getAllEntries(query)
    }

    /// Reads conditionally through the get part.
    @inlinable
    nonisolated(nonsending) public func getIfModified(
        _ query: any Query,
        since metadata: EntryMetadata
    ) async throws -> ConditionalRead<Value> {
        try await parts.getter.getIfModified(query, metadata)
    }

    /// Writes the entry through the put part.
    @inlinable
    nonisolated(nonsending) public func putEntry(_ entry: StoredEntry<Value>, in query: any Query) async throws -> Value
    {
        try await parts.putter.putEntry(entry, query)
    }

    /// Writes the entries through the put part.
    @inlinable
    nonisolated(nonsending) public func putAllEntries(
        _ entries: [StoredEntry<Value>],
        in query: any Query
    ) async throws -> [Value] {
        try await parts.putter.putAllEntries(entries, query)
    }

    /// Renews the metadata through the put part.
    @inlinable
    nonisolated(nonsending) public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws
        -> Bool
    {
        try await parts.putter.renewMetadata(metadata, query)
    }

    /// Deletes through the delete part.
    @inlinable
    nonisolated(nonsending) public func delete(_ query: any Query) async throws { try await parts.deleter(query) }
}

// MARK: - Erasing types

extension DataSourceAssembler {
    /// Erases the type of a full data source.
    ///
    /// - Parameter source: Any data source.
    @inlinable
    public init(_ source: some DataSource<Value>) {
        self.init(get: source, put: source, delete: source)
    }
}

/// The type-erased data source: an alias for ``DataSourceAssembler``.
public typealias AnyDataSource<Value: Sendable> = DataSourceAssembler<Value>
