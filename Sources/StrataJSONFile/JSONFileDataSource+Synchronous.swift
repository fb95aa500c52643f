import Foundation
import Strata

extension JSONFileDataSource {
    /// Returns the value stored under `key` and marks it most recently used, or `nil` when there is
    /// none, it expired, or its file was corrupt (then moved aside and reported).
    ///
    /// - Parameter key: The key.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/io`` when the file cannot be read.
    public func value(forKey key: String) throws -> Value? {
        try entry(forKey: key)?.value
    }

    /// Returns the entry stored under `key` with its stored date and expiry, and marks it most recently used.
    ///
    /// - Parameter key: The key.
    /// - Returns: The entry, or `nil` when there is none, it expired, or its file was corrupt.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/io``.
    public func entry(forKey key: String) throws -> StoredEntry<Value>? {
        try withStorage { storage in try readEntry(key, from: &storage, touching: true) }
    }

    /// Returns the entry stored under `key` for a listing: as ``entry(forKey:)``, but the recency order is left
    /// alone (a listing appends nothing to the index).
    ///
    /// - Parameter key: The key.
    /// - Throws: As ``entry(forKey:)``.
    public func listedEntry(forKey key: String) throws -> StoredEntry<Value>? {
        try withStorage { storage in try readEntry(key, from: &storage, touching: false) }
    }

    /// Marks the live entry under `key` most recently used without reading its file: what a cache in front of
    /// the store calls when it answers a read itself, so the store's LRU order still sees the use.
    ///
    /// - Parameter key: The key.
    /// - Returns: Whether there was a live entry.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/io`` when the index cannot be written.
    @discardableResult
    public func markUsed(forKey key: String) throws -> Bool {
        let now = configuration.clock.now()
        return try withStorage { storage in
            guard let record = storage.record(for: key),
                !storage.isExpired(record, now: now, defaultMaxAge: defaultMaxAge)
            else { return false }
            try storage.touch(key, now: now)
            return true
        }
    }

    /// Stores a value under `key`, then evicts least recently used entries beyond the count and size limits.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key; any string but the empty one.
    ///   - timeToLive: How long this entry lives; `nil` uses the configuration's default.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/dataSerialization`` when the
    ///   value cannot be encoded (nothing is written), ``Strata/StrataError/Code/tooLarge`` when its entry file would
    ///   be larger than ``Configuration/maxSize`` (nothing is written), ``Strata/StrataError/Code/io`` when a file
    ///   operation fails.
    public func setValue(_ value: Value, forKey key: String, timeToLive: Duration? = nil) throws {
        let date = configuration.clock.now()
        let stamp = EntryStamp(storedAt: date.timeIntervalSince1970, maxAge: timeToLive?.timeInterval)
        try write(value, forKey: key, stamp: stamp, now: date)
    }

    /// Stores a value under `key` with its metadata: the stored date (`nil`: now), the expiry (`nil`: the
    /// configuration's time to live from now) and the freshness date, all kept in the entry file and
    /// the index. The store keeps no validators, nor the rule never to serve an entry stale
    /// (``Strata/EntryMetadata/forbidsServingStale``): such an entry expires at its freshness date instead.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key; any string but the empty one.
    ///   - metadata: The entry's metadata.
    /// - Throws: As ``setValue(_:forKey:timeToLive:)``, and ``Strata/StrataError/Code/invalidArgument`` for a date in
    ///   `metadata` that is not a finite time (NaN, infinity) or a tag a store cannot keep.
    public func setValue(_ value: Value, forKey key: String, metadata: EntryMetadata) throws {
        try StrataError.checkMetadata(metadata)
        let date = configuration.clock.now()
        try write(value, forKey: key, stamp: EntryStamp(metadata, now: date, defaultMaxAge: defaultMaxAge), now: date)
    }

    /// Replaces the stored date, expiry and freshness date of the entry under `key` (expired or not) with one
    /// index record, without rewriting its entry file; returns whether there was an entry.
    ///
    /// The entry file keeps the dates it was written with: should the index ever be rebuilt from the entry files,
    /// the entry expires as first written (never later than renewed). The store keeps no validators: a conditional
    /// read's renewal that confirmed some (``Strata/EntryMetadata/renews(entryWithETag:lastModified:)``) names a
    /// version it cannot tell is its entry's, which is left as it is.
    ///
    /// - Parameters:
    ///   - metadata: The new metadata, read as ``setValue(_:forKey:metadata:)`` reads it.
    ///   - key: The key.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for an empty key or a date in `metadata` that is not
    ///   a finite time, ``Strata/StrataError/Code/io`` when the index cannot be written.
    @discardableResult
    public func renewMetadata(_ metadata: EntryMetadata, forKey key: String) throws -> Bool {
        try StrataError.checkKey(key)
        try StrataError.checkMetadata(metadata)
        let date = configuration.clock.now()
        let stamp = EntryStamp(metadata, now: date, defaultMaxAge: defaultMaxAge)
        return try withStorage { storage in
            guard storage.record(for: key) != nil else { return false }
            guard metadata.renews(entryWithETag: nil, lastModified: nil) else { return true }
            // A stored list answer must not outlive an entry that now expires before it.
            storedListAnswer.noteEntry(forKey: key, expiringAt: stamp.expiresAt)
            let renewed = try storage.renew(
                key,
                storedAt: stamp.storedAt,
                maxAge: stamp.maxAge,
                freshUntil: stamp.freshUntil,
                tags: stamp.tags,
                now: date
            )
            // Tags that grew may take the store past `maximumMetadataSize`, as a write may.
            if renewed { evictOverLimitsOrReport(from: &storage, now: date) }
            return renewed
        }
    }

    /// Encodes and writes an entry, evicts beyond the limits (a failure there is reported to the diagnostics closure,
    /// not thrown: the value is stored), and announces the put once it is in the index.
    private func write(_ value: Value, forKey key: String, stamp: EntryStamp, now date: Date) throws {
        try StrataError.checkKey(key)
        let encoder = configuration.makeEncoder()
        var written = false
        defer { if written { changeBroadcaster.publish(.put(key: key)) } }
        // A stored list answer must not outlive an entry that expires before it.
        storedListAnswer.noteEntry(forKey: key, expiringAt: stamp.expiresAt)
        try withStorage { storage in
            let sequence = storage.takeSequence()
            let header = EntryHeader(
                key: key,
                storedAt: stamp.storedAt,
                maxAge: stamp.maxAge,
                freshUntil: stamp.freshUntil,
                sequence: sequence,
                tags: stamp.tags.isEmpty ? nil : stamp.tags
            )
            var data: Data
            do {
                data = try encoder.encode(EntryEnvelope(header: header, value: value))
            } catch {
                throw StrataError.serialization(
                    error,
                    "Encoding the value for key \(StrataError.quoted(key: key)) failed"
                )
            }
            data.append(contentsOf: data.withUnsafeBytes { EntrySeal.trailer(for: $0) })
            var record = header.record
            record.size = data.count
            do {
                try storage.write(data, for: key, record: record, maxSize: configuration.maxSize, now: date)
            } catch {
                written = storage.record(for: key) == record
                throw error
            }
            written = true
            evictOverLimitsOrReport(from: &storage, now: date)
        }
    }

    /// Removes the value stored under `key`.
    ///
    /// An entry file of `key` that the index lacks (a put killed between its file and its index line) is removed
    /// too, so that ``removeExpired()`` does not take it back in.
    ///
    /// - Parameter key: The key.
    /// - Returns: Whether there was an entry, or such a file.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/io`` when a file operation fails.
    @discardableResult
    public func removeValue(forKey key: String) throws -> Bool {
        try removeValue(forKey: key) { _ in true }
    }

    /// Removes the value stored under `key` only while it is tagged `tag` (its index record says so, under the
    /// lock), and returns whether it did: what `delete(TagQuery(tag))` removes with, so that a write since the
    /// listing is kept.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - tag: The tag the entry must still carry.
    /// - Throws: As ``removeValue(forKey:)``.
    @discardableResult
    public func removeValue(forKey key: String, ifTagged tag: String) throws -> Bool {
        try removeValue(forKey: key) { $0.tags.contains(tag) }
    }

    /// Removes the value stored under `key` only while its entry is still the one `reported` describes (an
    /// inspector's report of this folder): the same place in the recency order, stored date and maximum age. An
    /// entry written, read or renewed since the report was made is kept.
    ///
    /// What the `strata` tool removes with once it has given up the inspector's hold on the folder, so that an app
    /// that opened the store in between keeps what it wrote or read.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - reported: The entry as the report gave it.
    /// - Returns: Whether the entry was removed.
    /// - Throws: As ``removeValue(forKey:)``.
    @discardableResult
    package func removeValue(forKey key: String, ifStill reported: JSONFileStoreEntry) throws -> Bool {
        try removeValue(forKey: key) { reported.isDescribed(by: $0) }
    }

    /// Removes the value stored under `key` when there is none or `isRemovable` accepts its index record, and
    /// announces the removal.
    private func removeValue(forKey key: String, if isRemovable: (IndexRecord) -> Bool) throws -> Bool {
        try StrataError.checkKey(key)
        let now = configuration.clock.now()
        let removed = try withStorage { storage in
            if let record = storage.record(for: key), !isRemovable(record) { return false }
            return try storage.remove(key, now: now)
        }
        if removed { changeBroadcaster.publish(.delete(key: key)) }
        return removed
    }

    /// Removes every entry and forgets the stored list answer. Files moved aside as corrupt stay, and so does
    /// every file the store did not name.
    ///
    /// The entry files go first, then the index: an entry whose file cannot be removed stays (the call then
    /// throws), and one a crash part-way left is still indexed, so none of them is taken back in later as an entry
    /// file the index lacks. Announced once any entry went, even when some stay.
    ///
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/io``.
    public func removeAll() throws {
        let now = configuration.clock.now()
        storedListAnswer.forget()
        var emptied = false
        defer { if emptied { changeBroadcaster.publish(.deleteAll) } }
        try withStorage { storage in
            let count = storage.count
            defer {
                emptied = storage.count < count || storage.count == 0
                reportPurge(of: count - storage.count, remaining: storage.count, bytes: storage.totalSize)
            }
            try storage.removeAll(now: now)
        }
    }

    /// Removes expired entries, deletes temporary files (left by crashes), takes into the index the intact
    /// entry files it does not name (a put a crash stopped before its index line), and compacts the index:
    /// what an app calls when it goes to the background or terminates. No entry file is deleted because the
    /// index does not know it; damaged ones are moved aside and reported.
    ///
    /// Every step is tried past one that fails (an expired entry whose file cannot be removed, an eviction over the
    /// limits that fails): the first failure is thrown once the sweep and the compaction are done.
    ///
    /// - Returns: How many expired entries were removed.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/io``: the first step that failed.
    @discardableResult
    public func removeExpired() throws -> Int {
        let now = configuration.clock.now()
        return try withStorage { storage in
            let expired = storage.sortedKeys().filter { key in
                storage.record(for: key).map { storage.isExpired($0, now: now, defaultMaxAge: defaultMaxAge) } ?? false
            }
            // Every expired entry is tried, and the rest of the sweep runs, past one whose file cannot be removed (an
            // immutable file): the first failure is thrown at the end.
            var failure: (any Error)?
            for key in expired {
                do { try evict(key, reason: .expired, from: &storage, now: now) } catch { failure = failure ?? error }
            }
            let makeDecoder = configuration.makeDecoder
            do {
                let adopted = try storage.adoptUnindexedEntries(now: now) { data in
                    try makeDecoder().decode(EntryHeader.self, from: data)
                }
                // What was taken in counts against the limits as a write does.
                if adopted > 0 { try evictOverLimits(from: &storage, now: now) }
            } catch {
                failure = failure ?? error
            }
            try storage.compact(now: now)
            if let failure { throw failure }
            return expired.count
        }
    }

    /// The keys of the entries that have not expired, in ascending order: the order of
    /// ``Strata/AllObjectsQuery`` and pagination.
    public func sortedKeys() -> [String] {
        let now = configuration.clock.now()
        return (try? withStorage { storage in liveKeys(in: &storage, now: now) }) ?? []
    }

    /// The keys from the most to the least recently used, expired ones included until removed.
    public var keysByRecency: [String] {
        (try? withStorage { $0.keysByRecency() }) ?? []
    }

    /// The number of entries, expired ones included until they are removed by ``removeExpired()``.
    public var count: Int {
        (try? withStorage { $0.count }) ?? 0
    }

    /// The bytes of the entries' files as the store wrote them, expired ones included until removed: what
    /// ``Configuration/maxSize`` bounds.
    public var totalSize: Int {
        (try? withStorage { $0.totalSize }) ?? 0
    }

    /// The most recent corruption reports (up to 100), oldest first; each names the file moved aside.
    public var corruptionReports: [StrataError] {
        (try? withStorage { $0.corruptionReports }) ?? []
    }

    /// How many corrupt files this instance has found and moved aside.
    public var corruptionCount: Int {
        (try? withStorage { $0.corruptionCount }) ?? 0
    }

    // MARK: - Internals shared with the DataSource conformance

    /// The unexpired keys in ascending order.
    func liveKeys(in storage: inout JSONFileStorage, now: Date) -> [String] {
        let maxAge = defaultMaxAge
        return storage.sortedKeys().filter { key in
            guard let record = storage.record(for: key) else { return false }
            return !storage.isExpired(record, now: now, defaultMaxAge: maxAge)
        }
    }

    /// Reads and decodes one entry; a damaged file is moved aside and reads as `nil`.
    ///
    /// - Throws: ``Strata/StrataError/Code/dataSerialization`` when the file is intact but its value does not
    ///   decode as `Value` (the file stays where it is).
    func readEntry(_ key: String, from storage: inout JSONFileStorage, touching: Bool) throws -> StoredEntry<Value>? {
        guard let record = storage.record(for: key) else { return nil }
        // An entry the read drops (its file missing, damaged, foreign) leaves the stored list answer no longer whole.
        let held = storage.count
        defer { if storage.count < held { storedListAnswer.forget() } }
        let now = configuration.clock.now()
        if storage.isExpired(record, now: now, defaultMaxAge: defaultMaxAge) { return nil }
        guard let data = try storage.readEntry(key, now: now) else {
            // The file is gone (removed by hand, or a crash during a delete): the entry is.
            try storage.forget(key, now: now)
            return nil
        }
        guard let value = try decodeValue(data, key: key, storage: &storage, now: now) else { return nil }
        // Best effort: a recency line a full disk refuses does not fail a read whose value is good.
        if touching { try? storage.touch(key, now: now, keepingOnFailure: true) }
        let storedAt = Date(timeIntervalSince1970: record.storedAt)
        return StoredEntry(
            value: value,
            metadata: EntryMetadata(
                storedAt: storedAt,
                expiresAt: (record.maxAge ?? defaultMaxAge).map { storedAt.addingTimeInterval($0) },
                freshUntil: record.freshUntil.map { Date(timeIntervalSince1970: $0) },
                tags: Set(record.tags)
            )
        )
    }
}
