/// A change to the entries of a data source or repository, as a ``ChangeBroadcaster`` announces it.
///
/// A change names keys, not values: an observer that wants the new value reads it again. That keeps
/// announcements cheap and lets a slow observer skip to the latest change without losing the latest state.
///
/// Changes are announced after the writes they name, so two writes of one key that race (a put and a delete on two
/// threads, or through two sources) can be announced in the other order from the one they were applied in: the newest
/// change an observer gets says to read again, not what the entry holds. A ``delete(key:)`` heard last may be older
/// than a value stored since; an observer that shows "gone" reads the key first (a repository stream does).
public enum DataChange: Sendable, Hashable {
    /// A value was stored under the key.
    case put(key: String)

    /// The entry under the key was deleted.
    case delete(key: String)

    /// Every entry was deleted.
    case deleteAll

    /// Any entry may have changed: a write whose keys are not known (a put of an ``AllObjectsQuery``, a
    /// query of your own). Observers read again.
    case invalidateAll

    /// The key the change names, or `nil` when it concerns every key.
    public var key: String? {
        switch self {
        case .put(let key), .delete(let key): key
        case .deleteAll, .invalidateAll: nil
        }
    }

    /// Whether the change can affect the entry under `key`.
    ///
    /// - Parameter key: The key of an entry.
    public func affects(key: String) -> Bool {
        self.key.map { $0 == key } ?? true
    }

    /// Whether the change removes the entry under `key`: a delete of that key or a delete of everything.
    ///
    /// - Parameter key: The key of an entry.
    public func removes(key: String) -> Bool {
        switch self {
        case .delete(let deleted): deleted == key
        case .deleteAll: true
        case .put, .invalidateAll: false
        }
    }
}
