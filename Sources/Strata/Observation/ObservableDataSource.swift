/// A data source that announces its changes, so repository streams update without polling.
///
/// Adopting it takes a few lines: keep a ``ChangeBroadcaster``, publish after each write, and forward
/// ``changes(forKey:)`` to it.
///
/// ```swift
/// final class NotesStore: DataSource, ObservableDataSource {
///     let changeBroadcaster = ChangeBroadcaster()
///
///     func changes(forKey key: String?) -> AsyncStream<DataChange> {
///         changeBroadcaster.changes(forKey: key)
///     }
///
///     func put(_ note: Note, in query: any Query) async throws -> Note {
///         defer { changeBroadcaster.publishWrite(to: query) }
///         …
///     }
/// }
/// ```
///
/// The stream should drop old changes rather than grow (``ChangeBroadcaster`` keeps the newest one) and
/// end when its consumer is cancelled.
public protocol ObservableDataSource: Sendable {
    /// Returns the changes of one entry, or of all entries when `key` is `nil`.
    ///
    /// - Parameter key: The key to observe; `nil` for every key.
    /// - Returns: A stream of changes that ends when the consumer stops iterating.
    func changes(forKey key: String?) -> AsyncStream<DataChange>
}

extension ValidatedDataSource: ObservableDataSource where Source: ObservableDataSource {
    /// The wrapped source's changes.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> {
        source.changes(forKey: key)
    }
}

extension MappedDataSource: ObservableDataSource where Source: ObservableDataSource {
    /// The wrapped source's changes.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> {
        source.changes(forKey: key)
    }
}
