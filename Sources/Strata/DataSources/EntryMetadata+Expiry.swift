import struct Foundation.Date

extension EntryMetadata {
    /// The expiry a store gives an entry written (or renewed) at `now` with this metadata: its own ``expiresAt``, or
    /// else `now` plus the store's time to live — counted from when the store takes the entry, not from
    /// ``storedAt``, which is when its source stored the value. A value main wrote an hour ago, copied into a cache
    /// whose time to live is a minute, lives a minute there, not expired on arrival; one dated ahead of the clock
    /// lives no longer than its time to live either.
    ///
    /// The rule of every key-value store of Strata (memory, file, JSON file).
    ///
    /// - Parameters:
    ///   - timeToLive: The store's time to live; `nil` for none.
    ///   - now: When the store takes the entry.
    /// - Returns: When the entry expires; `nil` for never.
    public func expiry(timeToLive: Duration?, now: Date) -> Date? {
        expiresAt ?? timeToLive.map { now.addingTimeInterval($0.timeInterval) }
    }
}
