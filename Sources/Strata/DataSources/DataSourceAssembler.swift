/// A full ``DataSource`` assembled from separate get, put and delete parts.
///
/// ```swift
/// let users = DataSourceAssembler(get: usersReader, put: usersWriter, delete: usersRemover)
/// ```
///
/// It also erases the types of its parts, so it is the way to store sources of different types in one
/// property.
public struct DataSourceAssembler<Value: Sendable>: DataSource {
    private let getter: any GetDataSource<Value>
    private let putter: any PutDataSource<Value>
    private let deleter: any DeleteDataSource

    /// Assembles a data source from three parts.
    ///
    /// - Parameters:
    ///   - get: Answers `get` and `getAll`.
    ///   - put: Answers `put` and `putAll`.
    ///   - delete: Answers `delete`.
    public init(
        get: some GetDataSource<Value>,
        put: some PutDataSource<Value>,
        delete: some DeleteDataSource
    ) {
        self.getter = get
        self.putter = put
        self.deleter = delete
    }

    /// Erases the type of a full data source.
    ///
    /// - Parameter source: Any data source.
    public init(_ source: some DataSource<Value>) {
        self.init(get: source, put: source, delete: source)
    }

    /// Reads through the get part.
    public func get(_ query: any Query) async throws -> Value { try await getter.get(query) }

    /// Reads through the get part.
    public func getAll(_ query: any Query) async throws -> [Value] { try await getter.getAll(query) }

    /// Writes through the put part.
    public func put(_ value: Value, in query: any Query) async throws -> Value {
        try await putter.put(value, in: query)
    }

    /// Writes through the put part.
    public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        try await putter.putAll(values, in: query)
    }

    /// Deletes through the delete part.
    public func delete(_ query: any Query) async throws { try await deleter.delete(query) }
}

/// The type-erased data source: an alias for ``DataSourceAssembler``.
public typealias AnyDataSource<Value: Sendable> = DataSourceAssembler<Value>
