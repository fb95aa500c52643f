import Strata

extension MemoryDataSource {
    /// Returns the changes of one key, or of all keys: every ``setValue(_:forKey:timeToLive:)`` and put,
    /// every removal and delete, and ``removeAll()``.
    ///
    /// Evictions under the limits, expiry and ``trim(keeping:)`` are not announced: the data did not change,
    /// the source only forgot it. The stream keeps the newest change of its key, or the newest 64 of every key (see
    /// ``Strata/ChangeBroadcaster``).
    ///
    /// - Parameter key: The key to observe; `nil` for every key.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> {
        changeBroadcaster.changes(forKey: key)
    }

    /// ``Strata/DataOrigin/memory``.
    public var origin: DataOrigin { .memory }

    /// `true`: a read is one lock and a lookup, so a ``Strata/CacheRepository`` reads this cache on its caller's
    /// executor.
    @inlinable public var readsWithoutBlocking: Bool { true }
}
