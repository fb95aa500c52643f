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
    /// - Returns: A stream of changes that ends when the consumer stops iterating.
    func changes(forKey key: String?) -> AsyncStream<DataChange>
}

// MARK: - Defaults

extension DataSourceCapabilities {
    /// ``DataOrigin/unspecified``: the source does not say, and a repository names it by its role.
    public var origin: DataOrigin { .unspecified }

    /// A stream that ends at once: the source announces nothing.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> {
        AsyncStream { $0.finish() }
    }
}
