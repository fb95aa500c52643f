import Foundation
import Strata

/// An in-memory data source bounded by count and by cost, with true least-recently-used eviction and
/// expiry.
///
/// Get and put are O(1): a hash index points into a linked list kept in arrays, guarded by one lock
/// (no actor hop). Both the async ``Strata/DataSource`` protocol and a synchronous API
/// (``value(forKey:)``, ``setValue(_:forKey:timeToLive:)``) are available.
///
/// ```swift
/// let memory = MemoryDataSource<Data>(configuration: .init(countLimit: 1_000, costLimit: 64 << 20))
/// _ = try await memory.put(png, in: KeyQuery("avatar"))
/// ```
///
/// An entry past its time to live is gone: reads treat it as not found and remove it. For soft expiry
/// (serve stale on error), wrap the source with ``Strata/GetDataSource/validated(by:)`` instead.
public final class MemoryDataSource<Value: Sendable>: Sendable {
    /// The limits and policies of the source.
    public let configuration: Configuration

    @usableFromInline let storage: Locked<LRUStorage<Value>>

    /// Announces every put, removal and ``removeAll()`` to observers (see ``changes(forKey:)``); evictions,
    /// expiry and ``trim(keeping:)`` are not announced, as they do not change the data, only what is kept.
    public let changeBroadcaster: ChangeBroadcaster

    /// The record of the list answer the source was given (see ``Strata/KeyValueStore``).
    public let storedListAnswer: StoredListAnswer

    /// The write stamps of every repository over the store (``Strata/CacheRepository``): a write through one keeps
    /// the others from writing an older answer of main back over it.
    package let writeStamps = CacheWriteStamps()

    /// Creates an empty source.
    ///
    /// - Parameter configuration: Limits, time to live, cost function and clock.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let storage = Locked(LRUStorage<Value>())
        self.storage = storage
        // The broadcaster mirrors its observer count into the storage, so a write checks for observers
        // under the lock it already holds instead of taking the broadcaster's.
        self.changeBroadcaster = ChangeBroadcaster { count in storage.withLock { $0.observerCount = count } }
        self.storedListAnswer = StoredListAnswer(clock: configuration.clock, timeToLive: configuration.timeToLive)
    }

    /// Creates an empty source with a count limit.
    ///
    /// - Parameters:
    ///   - countLimit: The most entries kept; the least recently used go first.
    ///   - timeToLive: How long an entry lives unless its put says otherwise; `nil` for ever.
    public convenience init(countLimit: Int, timeToLive: Duration? = nil) {
        self.init(configuration: Configuration(countLimit: countLimit, timeToLive: timeToLive))
    }

    // MARK: - Synchronous API

    /// Returns the value stored under `key` and marks it most recently used, or `nil`.
    ///
    /// - Parameter key: The key.
    @inlinable
    public func value(forKey key: String) -> Value? {
        storage.withLock { storage in
            guard let slot = liveSlot(forKey: key, in: &storage) else { return nil }
            return storage.nodes[slot].value
        }
    }

    /// Returns the entry stored under `key` with its metadata (stored date, expiry, freshness, validators) and
    /// marks it most recently used, or `nil`.
    ///
    /// - Parameter key: The key.
    @inlinable
    public func entry(forKey key: String) -> StoredEntry<Value>? {
        storage.withLock { storage in
            guard let slot = liveSlot(forKey: key, in: &storage), let value = storage.nodes[slot].value else {
                return nil
            }
            // Field by field: copying the whole node would retain and release its key and value once more.
            let validators = storage.nodes[slot].validators
            return StoredEntry(
                value: value,
                metadata: EntryMetadata(
                    storedAt: storage.nodes[slot].storedAt,
                    expiresAt: storage.nodes[slot].expiresAt,
                    freshUntil: validators?.freshUntil,
                    eTag: validators?.eTag,
                    lastModified: validators?.lastModified,
                    tags: validators?.tags ?? [],
                    forbidsServingStale: validators?.forbidsServingStale ?? false
                )
            )
        }
    }

    /// The slot of the live entry under `key`, marked most recently used; an expired entry is removed instead.
    ///
    /// The clock is read only for entries that can expire: the common hit stays clock-free.
    @inlinable @inline(__always)
    func liveSlot(forKey key: String, in storage: inout LRUStorage<Value>) -> Int? {
        guard let slot = storage.touch(key) else { return nil }
        if let expiresAt = storage.nodes[slot].expiresAt, configuration.clock.nowForExpiryCheck() >= expiresAt {
            expire(key, in: &storage)
            return nil
        }
        return slot
    }

    /// Stores a value under `key`, evicting least recently used entries beyond the limits.
    ///
    /// The empty key is no key: nothing is stored under it, as every other call refuses it
    /// (``setValue(_:forKey:metadata:)`` says so with an error).
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key.
    ///   - timeToLive: How long this entry lives; `nil` uses the configuration's default.
    @inlinable
    public func setValue(_ value: Value, forKey key: String, timeToLive: Duration? = nil) {
        guard !key.isEmpty else { return }
        let now = configuration.clock.now()
        let lifetime = timeToLive ?? configuration.timeToLive
        setValue(value, forKey: key, storedAt: now, expiresAt: lifetime.map { now.addingTimeInterval($0.timeInterval) })
    }

    /// Stores a value under `key` with its metadata: the stored date (`nil`: now), the expiry (`nil`: the
    /// configuration's time to live from now, ``Strata/EntryMetadata/expiry(timeToLive:now:)``), the freshness date
    /// and the validators.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key.
    ///   - metadata: The entry's metadata.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for the empty key, or a date that is not a finite time
    ///   (NaN, infinite); nothing is stored then.
    @inlinable
    public func setValue(_ value: Value, forKey key: String, metadata: EntryMetadata) throws {
        try StrataError.checkKey(key)
        try StrataError.checkDates(of: metadata)
        let now = configuration.clock.now()
        let storedAt = metadata.storedAt ?? now
        let expiresAt = metadata.expiry(timeToLive: configuration.timeToLive, now: now)
        write(value, forKey: key, storedAt: storedAt, expiresAt: expiresAt, validators: EntryValidators.of(metadata))
    }

    /// Replaces the metadata of the entry under `key` in place (expired or not); the value is not touched and
    /// the recency order is left alone. Returns whether there was an entry.
    ///
    /// A conditional read's renewal renews only the version it confirmed: an entry that no longer carries its
    /// validators (another version written since) is left as it is, checked under the lock the renewal takes
    /// (``Strata/EntryMetadata/renews(entryWithETag:lastModified:)``).
    ///
    /// - Parameters:
    ///   - metadata: The new metadata, read as ``setValue(_:forKey:metadata:)`` reads it.
    ///   - key: The key.
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` for the empty key, or a date that is not a finite
    ///   time; nothing is renewed then.
    @discardableResult
    public func renewMetadata(_ metadata: EntryMetadata, forKey key: String) throws -> Bool {
        try StrataError.checkKey(key)
        try StrataError.checkDates(of: metadata)
        let now = configuration.clock.now()
        let storedAt = metadata.storedAt ?? now
        let expiresAt = metadata.expiry(timeToLive: configuration.timeToLive, now: now)
        return storage.withLock { storage in
            guard let slot = storage.slot(of: key) else { return false }
            let validators = storage.nodes[slot].validators
            guard metadata.renews(entryWithETag: validators?.eTag, lastModified: validators?.lastModified) else {
                return true
            }
            // A stored list answer must not outlive an entry that now expires before it.
            storedListAnswer.noteEntry(forKey: key, expiringAt: expiresAt)
            storage.nodes[slot].storedAt = storedAt
            storage.nodes[slot].expiresAt = expiresAt
            let kept = validators?.tags ?? []
            storage.replaceValidators(of: slot, with: EntryValidators.of(metadata, keepingTags: kept))
            return true
        }
    }

    /// Removes the value stored under `key`; returns whether there was one.
    ///
    /// - Parameter key: The key.
    @discardableResult
    public func removeValue(forKey key: String) -> Bool {
        let (removed, observed) = storage.withLock { ($0.remove(key), $0.observerCount > 0) }
        if removed, observed { changeBroadcaster.publish(.delete(key: key)) }
        return removed
    }

    /// Removes the value stored under `key` only while it is tagged `tag` (checked under the lock); returns whether
    /// it removed one: what `delete(TagQuery(tag))` removes with, so that a write since the listing is kept.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - tag: The tag the entry must still carry.
    @discardableResult
    public func removeValue(forKey key: String, ifTagged tag: String) -> Bool {
        let (removed, observed) = storage.withLock { storage in
            guard let slot = storage.slot(of: key), storage.nodes[slot].validators?.tags.contains(tag) == true else {
                return (false, false)
            }
            return (storage.remove(key), storage.observerCount > 0)
        }
        if removed, observed { changeBroadcaster.publish(.delete(key: key)) }
        return removed
    }

    /// Removes every entry and forgets the stored list answer, announced as a deletion: every stream over the store
    /// reports its value deleted. On memory pressure, call ``trim(keeping:)`` instead, which empties the store just
    /// as well without announcing anything (the data did not change).
    public func removeAll() {
        storage.withLock { storage in
            let removed = storage.count
            storage.removeAll()
            guard removed > 0, let observer = configuration.evictionObserver else { return }
            observer.storeDidEvict(StoreEviction(reason: .purged, key: nil, count: removed, usage: usage(of: storage)))
        }
        storedListAnswer.forget()
        changeBroadcaster.publish(.deleteAll)
    }

    /// Removes entries until at most `fraction` of the cost and count limits is used, least recently used
    /// first; with the default of zero it empties the source. Unlike ``removeAll()``, it is not announced: it trims
    /// what is kept, the data did not change. A stored list answer is forgotten once an entry goes (as with every
    /// eviction): the next listing through a repository asks main again rather than serve what is left.
    ///
    /// - Parameter fraction: The share of the limits to keep, from 0 to 1; below 0, or not a number (a ratio over
    ///   a total of 0, say), 0; above 1, 1.
    public func trim(keeping fraction: Double = 0) {
        storage.withLock { storage in
            let countTarget = Self.share(fraction, of: configuration.countLimit ?? storage.count)
            let costTarget = Self.share(fraction, of: configuration.appliedCostLimit ?? storage.totalCost)
            while storage.count > countTarget || storage.totalCost > costTarget,
                evictLeastRecentlyUsed(&storage, reason: .purged)
            {}
        }
    }

    /// `fraction` of `limit`, rounded down: 0 for a fraction that is not above 0 (or not a number), `limit` from 1 up,
    /// so that no limit (`Int.max` included) makes a number an `Int` cannot hold.
    static func share(_ fraction: Double, of limit: Int) -> Int {
        guard fraction > 0 else { return 0 }
        guard fraction < 1 else { return limit }
        return Int(exactly: (Double(limit) * fraction).rounded(.down)) ?? limit
    }

    /// Removes every entry whose time to live has passed.
    ///
    /// - Returns: How many entries were removed.
    @discardableResult
    public func removeExpired() -> Int {
        let now = configuration.clock.nowForExpiryCheck()
        return storage.withLock { storage in
            var removed = 0
            for slot in storage.nodes.indices where storage.nodes[slot].value != nil {
                if let expiresAt = storage.nodes[slot].expiresAt, now >= expiresAt {
                    let key = storage.nodes[slot].key
                    storage.removeSlot(slot)
                    storage.release(slot)
                    removed += 1
                    configuration.evictionObserver?.storeDidEvict(
                        StoreEviction(reason: .expired, key: key, usage: usage(of: storage))
                    )
                }
            }
            storage.compactIfSparse()
            // The stored list answer no longer holds every entry it listed.
            if removed > 0 { storedListAnswer.forget() }
            return removed
        }
    }

    /// The number of entries, expired ones included until they are read or removed.
    public var count: Int { storage.withLock { $0.count } }

    /// The sum of the costs of the entries.
    public var totalCost: Int { storage.withLock { $0.totalCost } }

    /// The keys from the most to the least recently used.
    public var keysByRecency: [String] { storage.withLock { $0.keysByRecency } }

    /// The live keys in ascending order, the order of ``Strata/AllObjectsQuery`` and pagination.
    public func sortedKeys() -> [String] {
        let now = configuration.clock.nowForExpiryCheck()
        return storage.withLock { storage in
            storage.nodes.compactMap { node in
                guard node.value != nil else { return nil }
                if let expiresAt = node.expiresAt, now >= expiresAt { return nil }
                return node.key
            }
        }.sorted()
    }

    @inlinable
    func evict(_ storage: inout LRUStorage<Value>) {
        let countLimit = configuration.countLimit ?? .max
        let costLimit = configuration.appliedCostLimit ?? .max
        while storage.count > countLimit || storage.totalCost > costLimit,
            evictLeastRecentlyUsed(&storage, reason: storage.count > countLimit ? .countLimit : .sizeLimit)
        {}
    }
}

extension MemoryDataSource: WriteStampedCache {
    /// The store's write stamps.
    package var sharedWriteStamps: CacheWriteStamps? { writeStamps }
}
