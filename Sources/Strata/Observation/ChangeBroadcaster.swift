/// Announces ``DataChange``s to any number of observers, each through its own bounded `AsyncStream`.
///
/// Observers register for one key or for every key with ``changes(forKey:bufferingNewest:)``; writers call
/// ``publish(_:)``. Each observer's stream keeps only the newest changes (`bufferingNewest`: by default one
/// for a key, 64 for every key): a slow observer is never behind by more than its buffer, and because a
/// change names a key rather than carrying a value, reading again after the newest change always gives the
/// latest state. An observer of every key that loses a change is sent ``DataChange/invalidateAll`` after it:
/// the newer changes of a key stand for its older ones, but a change of another key does not.
///
/// A registration is removed when its stream ends (the consuming task is cancelled or stops iterating),
/// so ``observerCount`` returns to zero on its own. With no observer, ``publish(_:)`` costs one uncontended
/// lock: data sources can publish on every write.
///
/// ```swift
/// let broadcaster = ChangeBroadcaster()
/// let changes = broadcaster.changes(forKey: "42")  // registered now: a change published after this reaches it
/// let watcher = Task { for await change in changes { print(change) } }
/// broadcaster.publish(.put(key: "42"))
/// // …
/// watcher.cancel()  // ends the stream and its registration
/// ```
public final class ChangeBroadcaster: Sendable {
    private struct Observer {
        let delivery: ChangeDelivery
        /// Registered by a repository stream: changes written by a stream's own refresh are not sent to it.
        let isStream: Bool
    }

    private struct State {
        var nextID: UInt64 = 0
        var byKey: [String: [UInt64: Observer]] = [:]
        var allKeys: [UInt64: Observer] = [:]
        var maxBufferedCount = 0
        var droppedCount = 0
    }

    private let state = Locked(State())
    private let liveObservers = Locked(0)
    private let observerCountDidChange: (@Sendable (Int) -> Void)?

    /// Creates a broadcaster with no observers.
    public init() {
        observerCountDidChange = nil
    }

    /// Creates a broadcaster that reports every change of its observer count.
    ///
    /// A data source that owns the broadcaster can keep the count in its own locked state and skip
    /// ``publish(_:)`` while nobody observes, without taking the broadcaster's lock on every write. The
    /// report runs under the broadcaster's lock, in registration order: it must not call back into the
    /// broadcaster, and whatever lock it takes must never be held while calling the broadcaster.
    ///
    /// - Parameter observerCountDidChange: Receives the new observer count.
    package init(observerCountDidChange: @escaping @Sendable (Int) -> Void) {
        self.observerCountDidChange = observerCountDidChange
    }

    /// Ends every observer's stream: a broadcaster released with its source (a store the app let go) leaves no
    /// consumer waiting for changes that can no longer come.
    deinit {
        let deliveries = state.withLock { state in
            state.allKeys.values.map(\.delivery) + state.byKey.values.flatMap { $0.values.map(\.delivery) }
        }
        for delivery in deliveries { delivery.finish() }
    }

    /// Returns a stream of the changes of one key, or of every key.
    ///
    /// Changes of every key (``DataChange/deleteAll``, ``DataChange/invalidateAll``) reach every observer.
    ///
    /// - Parameters:
    ///   - key: The key to observe; `nil` for every key.
    ///   - limit: How many undelivered changes the stream keeps, older ones dropped first; at least 1. By default
    ///     (`nil`) one for a key and 64 for every key: with room for one, an observer of every key that falls
    ///     behind hears ``DataChange/invalidateAll`` in place of the change it missed.
    /// - Returns: A stream that ends, and unregisters, when its consumer is cancelled; it ends too when the
    ///   broadcaster is released.
    public func changes(forKey key: String? = nil, bufferingNewest limit: Int? = nil) -> AsyncStream<DataChange> {
        let (stream, delivery) = ChangeDelivery.makeStream(limit: limit, forKey: key)
        let observer = Observer(delivery: delivery, isStream: ObservationScope.isStreamRefresh)
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            if let key {
                state.byKey[key, default: [:]][state.nextID] = observer
            } else {
                state.allKeys[state.nextID] = observer
            }
            let count = liveObservers.withLock { count in
                count += 1
                return count
            }
            observerCountDidChange?(count)
            return state.nextID
        }
        delivery.onTermination { [weak self] in
            self?.remove(id, key: key)
        }
        return stream
    }

    /// Sends a change to every observer of its key and to every observer of all keys.
    ///
    /// Each observer receives changes in the order they were published; a slow observer loses the oldest
    /// of its undelivered changes first. An observer of every key that loses one is sent
    /// ``DataChange/invalidateAll`` after it, unless one sent after it is still on its way; with room for one
    /// change, that ``DataChange/invalidateAll`` takes the place of the newest.
    ///
    /// - Parameter change: What changed.
    public func publish(_ change: DataChange) {
        guard liveObservers.withLock({ $0 }) > 0 else { return }
        let fromStream = ObservationScope.isStreamRefresh
        state.withLock { state in
            if let key = change.key {
                if let observers = state.byKey[key] {
                    for observer in observers.values { send(change, to: observer, fromStream, &state) }
                }
            } else {
                for observers in state.byKey.values {
                    for observer in observers.values { send(change, to: observer, fromStream, &state) }
                }
            }
            for observer in state.allKeys.values { send(change, to: observer, fromStream, &state) }
        }
    }

    /// The number of registered observers.
    public var observerCount: Int { liveObservers.withLock { $0 } }

    /// Whether any observer is registered; one uncontended lock.
    public var hasObservers: Bool { observerCount > 0 }

    /// The most changes that ever waited, undelivered, in one observer's buffer: never more than the
    /// largest `bufferingNewest` limit in use.
    public var maxBufferedCount: Int { state.withLock { $0.maxBufferedCount } }

    /// How many changes were dropped because an observer's buffer was full, those pushed out by an
    /// ``DataChange/invalidateAll`` sent after a loss included.
    public var droppedCount: Int { state.withLock { $0.droppedCount } }

    private func send(_ change: DataChange, to observer: Observer, _ fromStream: Bool, _ state: inout State) {
        // A stream's refresh (a cache write after a main read) never wakes a stream: two screens on one
        // key would otherwise refresh each other for ever.
        if fromStream && observer.isStream { return }
        guard let outcome = observer.delivery.send(change) else { return }
        state.droppedCount += outcome.dropped
        state.maxBufferedCount = max(state.maxBufferedCount, outcome.buffered)
    }

    private func remove(_ id: UInt64, key: String?) {
        state.withLock { state in
            let removed: Observer?
            if let key {
                removed = state.byKey[key]?.removeValue(forKey: id)
                if state.byKey[key]?.isEmpty == true { state.byKey[key] = nil }
            } else {
                removed = state.allKeys.removeValue(forKey: id)
            }
            if removed != nil {
                let count = liveObservers.withLock { count in
                    count -= 1
                    return count
                }
                observerCountDidChange?(count)
            }
        }
    }
}
