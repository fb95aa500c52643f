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

    /// Returns the entry stored under `key` with its stored date and marks it most recently used.
    ///
    /// - Parameter key: The key.
    /// - Returns: The entry, or `nil` when there is none, it expired, or its file was corrupt.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/io``.
    public func entry(forKey key: String) throws -> StoredEntry<Value>? {
        try withStorage { storage in try readEntry(key, from: &storage, touching: true) }
    }

    /// Stores a value under `key`, then evicts least recently used entries beyond the count limit.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key; any string but the empty one.
    ///   - maxAge: How long this entry lives; `nil` uses the configuration's default.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/dataSerialization`` when the
    ///   value cannot be encoded (nothing is written), ``Strata/StrataError/Code/io`` when a file
    ///   operation fails.
    public func setValue(_ value: Value, forKey key: String, maxAge: Duration? = nil) throws {
        try StrataError.checkKey(key)
        let date = configuration.clock.now()
        let now = date.timeIntervalSince1970
        let maxAgeSeconds = maxAge?.timeInterval
        let encoder = configuration.makeEncoder()
        try withStorage { storage in
            let sequence = storage.takeSequence()
            let envelope = EntryEnvelope(
                key: key,
                storedAt: now,
                maxAge: maxAgeSeconds,
                sequence: sequence,
                value: value
            )
            var data: Data
            do {
                data = try encoder.encode(envelope)
            } catch {
                throw StrataError.serialization(
                    error,
                    "Encoding the value for key \(StrataError.quoted(key: key)) failed"
                )
            }
            data.append(contentsOf: data.withUnsafeBytes { EntrySeal.trailer(for: $0) })
            try storage.write(
                data,
                for: key,
                record: IndexRecord(storedAt: now, maxAge: maxAgeSeconds, sequence: sequence),
                now: date
            )
            if let countLimit = configuration.countLimit {
                while storage.count > countLimit, let victim = storage.leastRecentlyUsedKey() {
                    try storage.remove(victim, now: date)
                }
            }
        }
        changeBroadcaster.publish(.put(key: key))
    }

    /// Removes the value stored under `key`.
    ///
    /// - Parameter key: The key.
    /// - Returns: Whether there was an entry.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/invalidArgument`` for an empty key,
    ///   ``Strata/StrataError/Code/io`` when a file operation fails.
    @discardableResult
    public func removeValue(forKey key: String) throws -> Bool {
        try StrataError.checkKey(key)
        let now = configuration.clock.now()
        let removed = try withStorage { try $0.remove(key, now: now) }
        if removed { changeBroadcaster.publish(.delete(key: key)) }
        return removed
    }

    /// Removes every entry. Files moved aside as corrupt stay, and so does every file the store did not name.
    ///
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/io``.
    public func removeAll() throws {
        defer { changeBroadcaster.publish(.deleteAll) }
        let now = configuration.clock.now()
        try withStorage { try $0.removeAll(now: now) }
    }

    /// Removes expired entries, deletes temporary files (left by crashes), takes into the index the intact
    /// entry files it does not name (a put a crash stopped before its index line), and compacts the index:
    /// what an app calls when it goes to the background or terminates. No entry file is deleted because the
    /// index does not know it; damaged ones are moved aside and reported.
    ///
    /// - Returns: How many expired entries were removed.
    /// - Throws: ``Strata/StrataError`` with code ``Strata/StrataError/Code/io``.
    @discardableResult
    public func cleanup() throws -> Int {
        let now = configuration.clock.now()
        return try withStorage { storage in
            let expired = storage.sortedKeys().filter { key in
                storage.record(for: key).map { storage.isExpired($0, now: now, defaultMaxAge: defaultMaxAge) } ?? false
            }
            for key in expired { try storage.remove(key, now: now) }
            let makeDecoder = configuration.makeDecoder
            try storage.adoptUnindexedEntries(now: now) { data in
                try makeDecoder().decode(EntryHeader.self, from: data)
            }
            try storage.compact(now: now)
            return expired.count
        }
    }

    /// The keys of the entries that have not expired, in ascending order: the order of
    /// ``Strata/AllObjectsQuery`` and pagination.
    public func keys() -> [String] {
        let now = configuration.clock.now()
        return (try? withStorage { storage in liveKeys(in: &storage, now: now) }) ?? []
    }

    /// The keys from the most to the least recently used, expired ones included until removed.
    public var keysByRecency: [String] {
        (try? withStorage { $0.keysByRecency() }) ?? []
    }

    /// The number of entries, expired ones included until they are removed by ``cleanup()``.
    public var count: Int {
        (try? withStorage { $0.count }) ?? 0
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
        let now = configuration.clock.now()
        if storage.isExpired(record, now: now, defaultMaxAge: defaultMaxAge) { return nil }
        guard let data = try storage.readEntry(key, now: now) else {
            // The file is gone (removed by hand, or a crash during a delete): the entry is.
            try storage.forget(key)
            return nil
        }
        guard let value = try decodeValue(data, key: key, storage: &storage, now: now) else { return nil }
        if touching { try storage.touch(key, now: now) }
        return StoredEntry(value: value, storedAt: Date(timeIntervalSince1970: record.storedAt))
    }
}
