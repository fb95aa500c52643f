/// A full ``DataSource`` assembled from separate get, put and delete parts.
///
/// ```swift
/// let users = DataSourceAssembler(get: usersReader, put: usersWriter, delete: usersRemover)
/// ```
///
/// It also erases the types of its parts, so it is the way to store sources of different types in one
/// property. Capabilities are forwarded: the origin, entries and conditional reads of the get part, the changes
/// and metadata writes of the put part (where writes happen).
public struct DataSourceAssembler<Value: Sendable>: DataSource {
    private let parts: AssemblerParts<any GetDataSource<Value>, any PutDataSource<Value>, any DeleteDataSource>

    /// Assembles a data source from three parts.
    ///
    /// - Parameters:
    ///   - get: Answers `get` and `getAll`.
    ///   - put: Answers `put` and `putAll`.
    ///   - delete: Answers `delete`.
    public init(get: some GetDataSource<Value>, put: some PutDataSource<Value>, delete: some DeleteDataSource) {
        parts = AssemblerParts(getter: get, putter: put, deleter: delete)
    }

    /// Reads through the get part.
    public func get(_ query: any Query) async throws -> Value { try await parts.getter.get(query) }

    /// Reads through the get part.
    public func getAll(_ query: any Query) async throws -> [Value] { try await parts.getter.getAll(query) }

    /// Writes through the put part.
    public func put(_ value: Value, in query: any Query) async throws -> Value {
        try await parts.putter.put(value, in: query)
    }

    /// Writes through the put part.
    public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        try await parts.putter.putAll(values, in: query)
    }

    /// The get part's origin.
    public var origin: DataOrigin { parts.getter.origin }

    /// Whether the get part reads without blocking.
    public var readsWithoutBlocking: Bool { parts.getter.readsWithoutBlocking }

    /// The put part's changes: writes happen there.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> { parts.putter.changes(forKey: key) }

    /// Reads the entry through the get part.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Value> {
        try await parts.getter.getEntry(query)
    }

    /// Reads the entries through the get part.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
        try await parts.getter.getAllEntries(query)
    }

    /// Reads conditionally through the get part.
    public func getIfModified(_ query: any Query, since metadata: EntryMetadata) async throws -> ConditionalRead<Value>
    {
        try await parts.getter.getIfModified(query, since: metadata)
    }

    /// Writes the entry through the put part.
    public func putEntry(_ entry: StoredEntry<Value>, in query: any Query) async throws -> Value {
        try await parts.putter.putEntry(entry, in: query)
    }

    /// Writes the entries through the put part.
    public func putAllEntries(_ entries: [StoredEntry<Value>], in query: any Query) async throws -> [Value] {
        try await parts.putter.putAllEntries(entries, in: query)
    }

    /// Renews the metadata through the put part.
    public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        try await parts.putter.renewMetadata(metadata, in: query)
    }

    /// Deletes through the delete part.
    public func delete(_ query: any Query) async throws { try await parts.deleter.delete(query) }
}

// MARK: - Erasing types

extension DataSourceAssembler {
    /// Erases the type of a full data source.
    ///
    /// - Parameter source: Any data source.
    public init(_ source: some DataSource<Value>) {
        self.init(get: source, put: source, delete: source)
    }
}

/// The type-erased data source: an alias for ``DataSourceAssembler``.
public typealias AnyDataSource<Value: Sendable> = DataSourceAssembler<Value>
