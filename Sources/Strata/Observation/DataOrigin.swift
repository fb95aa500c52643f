/// Where a value in a ``RepositoryResponse`` came from: memory, a file, the network, or a source of your own.
///
/// A data source names its origin by conforming to ``OriginProviding``; a source that does not is reported
/// by its role in the repository, ``main`` or ``cache``.
///
/// ```swift
/// extension UsersAPI: OriginProviding {
///     var origin: DataOrigin { .network }
/// }
/// let sqlite = DataOrigin("sqlite")
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
}

/// A data source that says where its values come from, for ``RepositoryResponse``.
///
/// Optional: a repository reports a source that does not conform as ``DataOrigin/main`` or
/// ``DataOrigin/cache``, by its role. Wrappers such as ``ValidatedDataSource`` forward their source's
/// origin.
public protocol OriginProviding {
    /// Where this source's values come from.
    var origin: DataOrigin { get }
}

extension ValidatedDataSource: OriginProviding where Source: OriginProviding {
    /// The wrapped source's origin.
    public var origin: DataOrigin { source.origin }
}

extension MappedDataSource: OriginProviding where Source: OriginProviding {
    /// The wrapped source's origin.
    public var origin: DataOrigin { source.origin }
}
