import Strata

extension JSONFileDataSource {
    /// Returns the changes of one key, or of all keys: every put, every removal and delete, and
    /// ``removeAll()`` made through this store.
    ///
    /// Evictions under the count and size limits, expiry and ``removeExpired()`` are not announced: the data did not change,
    /// the store only forgot it. Changes made by another process are not seen. The stream keeps the newest
    /// change (see ``Strata/ChangeBroadcaster``).
    ///
    /// - Parameter key: The key to observe; `nil` for every key.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> {
        changeBroadcaster.changes(forKey: key)
    }

    /// ``Strata/DataOrigin/file``.
    public var origin: DataOrigin { .file }
}
