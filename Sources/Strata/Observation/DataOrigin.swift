/// Where a value in a ``RepositoryResponse`` came from: memory, a file, the network, or a source of your own.
///
/// A data source names its origin with ``DataSourceCapabilities/origin``; a source that does not is reported
/// by its role in the repository, ``main`` or ``cache``.
///
/// ```swift
/// extension UsersAPI {
///     var origin: DataOrigin { .network }
/// }
///
/// extension DataOrigin {
///     static let sqlite = DataOrigin("sqlite")
/// }
/// ```
public struct DataOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The name of the origin, such as `memory` or `network`.
    public let name: String

    /// Creates an origin with a name of your own.
    ///
    /// - Parameter name: A short, stable name.
    public init(_ name: String) {
        self.name = name
    }

    /// The name of the origin.
    public var description: String { name }

    /// An in-memory source, such as `MemoryDataSource`.
    public static let memory = DataOrigin("memory")

    /// A source backed by files on disk.
    public static let file = DataOrigin("file")

    /// A source that talks to a server.
    public static let network = DataOrigin("network")

    /// The main source of a repository that does not say what it is.
    public static let main = DataOrigin("main")

    /// The cache source of a repository that does not say what it is.
    public static let cache = DataOrigin("cache")

    /// A source that does not say where its values come from: the default of
    /// ``DataSourceCapabilities/origin``.
    public static let unspecified = DataOrigin("unspecified")

    /// This origin, or `role` when it is ``unspecified``: how a repository names a source in its responses.
    ///
    /// - Parameter role: ``main`` or ``cache``, the source's role in the repository.
    public func specified(or role: DataOrigin) -> DataOrigin {
        self == .unspecified ? role : self
    }
}
