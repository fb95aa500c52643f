/// What every data source can say about itself beyond reading and writing: where its values come from and
/// how it announces its changes.
///
/// ``GetDataSource``, ``PutDataSource`` and ``DeleteDataSource`` all refine this protocol, so every source has
/// these capabilities, with defaults for a source that says nothing. They are protocol *requirements*, not
/// extension methods, so they dispatch dynamically: a wrapper (plugins, validation, mapping, a spy, an
/// assembler, a wrapper of your own) forwards them by implementing them with its source's answer, and a
/// repository that holds `any GetDataSource<User>` still sees the real source's answer.
///
/// ```swift
/// // Not compiled: an outline; the source's reads and writes are elided
/// struct UsersAPI: DataSource {
///     var origin: DataOrigin { .network }
///     …
/// }
/// ```
public protocol DataSourceCapabilities: Sendable {
    /// Where this source's values come from, such as ``DataOrigin/memory`` or ``DataOrigin/network``.
    ///
    /// The default, ``DataOrigin/unspecified``, makes a repository report the source by its role
    /// (``DataOrigin/main`` or ``DataOrigin/cache``).
    var origin: DataOrigin { get }

    /// Returns the changes of one entry, or of every entry when `key` is `nil`.
    ///
    /// A source that announces its changes keeps a ``ChangeBroadcaster``, publishes after each write that
    /// happened, and returns ``ChangeBroadcaster/changes(forKey:bufferingNewest:)`` here. The default returns a stream that
    /// ends at once: the source announces nothing, and repositories learn of changes only through their own
    /// writes.
    ///
    /// - Parameter key: The key to observe; `nil` for every key.
    /// - Returns: A stream of changes that ends when the consumer stops iterating, or when the source is released.
    func changes(forKey key: String?) -> AsyncStream<DataChange>

    /// Whether a read answers at once, from memory, without waiting for a disk, a network or a lock held for long.
    ///
    /// A ``CacheRepository`` may read a cache that says so on its caller's executor, without a hop (where the call
    /// is specialised for the cache's type, as in an optimised build); it always reads any other cache off it, on the
    /// global concurrent executor, so a disk read never runs on the caller's actor. The default is `false`; a
    /// wrapper forwards its source's answer.
    var readsWithoutBlocking: Bool { get }
}

// MARK: - Defaults

extension DataSourceCapabilities {
    /// ``DataOrigin/unspecified``: the source does not say, and a repository names it by its role.
    public var origin: DataOrigin { .unspecified }

    /// `false`: a read may wait for a disk or a network, so a repository reads the source off its caller's executor.
    @inlinable public var readsWithoutBlocking: Bool { false }

    /// A stream that ends at once: the source announces nothing.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> {
        AsyncStream { $0.finish() }
    }
}
