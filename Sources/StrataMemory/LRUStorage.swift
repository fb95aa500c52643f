import Foundation
import Strata

/// The state behind ``MemoryDataSource``: a hash index into a doubly linked list kept in arrays.
///
/// Index-linked nodes make get, put and eviction O(1) without a reference-counted object per entry.
/// The list runs from the most recently used entry (`head`) to the least recently used (`tail`).
///
/// The index is an open-addressing table (linear probing, at most half full) of node slots that keeps each
/// key's hash beside its slot. A put hashes its key once; evicting or removing an entry, and growing the
/// table, never hash a key again (a `Dictionary` would hash the evicted key to find it and then rehash the
/// keys that follow it in its probe run). Hashing uses `Hasher`, seeded per process like `Dictionary`.
/// Not thread-safe: ``MemoryDataSource`` owns it inside a lock.
@usableFromInline
struct LRUStorage<Value> {
    @usableFromInline
    struct Node {
        @usableFromInline var key: String
        @usableFromInline var hash: Int
        @usableFromInline var value: Value?
        @usableFromInline var cost: Int
        @usableFromInline var storedAt: Date
        @usableFromInline var expiresAt: Date?
        /// The entry's validators and freshness date; `nil` (the common case) costs no allocation.
        @usableFromInline var validators: EntryValidators?
        @usableFromInline var previous: Int
        @usableFromInline var next: Int

        @inlinable
        init(
            key: String,
            hash: Int,
            value: Value?,
            cost: Int,
            storedAt: Date,
            expiresAt: Date?,
            validators: EntryValidators?,
            previous: Int,
            next: Int
        ) {
            self.key = key
            self.hash = hash
            self.value = value
            self.cost = cost
            self.storedAt = storedAt
            self.expiresAt = expiresAt
            self.validators = validators
            self.previous = previous
            self.next = next
        }
    }

    /// One cell of the index: a node slot plus one (0 marks an empty cell) and the hash of that node's key.
    @usableFromInline
    struct Bucket {
        @usableFromInline var slotPlusOne: Int
        @usableFromInline var hash: Int

        @inlinable
        init(slotPlusOne: Int, hash: Int) {
            self.slotPlusOne = slotPlusOne
            self.hash = hash
        }

        @inlinable
        static var empty: Bucket { Bucket(slotPlusOne: 0, hash: 0) }
    }

    @usableFromInline var nodes: [Node] = []
    @usableFromInline var freeSlots: [Int] = []
    /// The hash index; its count is zero or a power of two, and at most half its cells are used.
    @usableFromInline var buckets: [Bucket] = []
    @usableFromInline var liveCount = 0
    @usableFromInline var head = -1
    @usableFromInline var tail = -1

    /// The keys of the entries by tag, for the entries that have tags: group invalidation in time proportional to
    /// the group.
    @usableFromInline var keysByTag: [String: Set<String>] = [:]

    /// The sum of the costs of the live entries, at most `Int.max`.
    @inlinable var totalCost: Int { costs.value }

    /// The exact sum of the costs of the live entries: a store whose costs add up past `Int.max` is over any cost
    /// limit and evicts, and its total comes back to the true figure as entries go.
    @usableFromInline var costs = SizeTotal()

    /// The number of observers of the owner's change broadcaster, kept here so that a write learns whether
    /// to announce itself from the lock it already holds. ``removeAll()`` leaves it alone.
    @usableFromInline var observerCount = 0

    @inlinable
    init() {}

    /// The number of live entries.
    @inlinable
    var count: Int { liveCount }

    /// Returns the slot of the entry and marks it most recently used.
    @inlinable
    mutating func touch(_ key: String) -> Int? {
        guard let slot = slot(of: key) else { return nil }
        moveToHead(slot)
        return slot
    }

    /// Returns the slot of the entry without changing the order.
    @inlinable
    func slot(of key: String) -> Int? {
        guard !buckets.isEmpty else { return nil }
        let hash = key.hashValue
        let (_, slot) = find(key, hash: hash)
        return slot
    }

    /// Inserts or replaces the entry for `key` and marks it most recently used.
    ///
    /// A new key that would take the count beyond `countLimit` first removes the least recently used entry
    /// and reuses its node: the same entries remain as if it were inserted first and evicted after.
    ///
    /// - Returns: Whether an entry was evicted for it.
    @inlinable
    @discardableResult
    mutating func set(
        _ key: String,
        value: Value,
        cost: Int,
        storedAt: Date,
        expiresAt: Date?,
        validators: EntryValidators? = nil,
        countLimit: Int = .max
    ) -> Bool {
        let hash = key.hashValue
        if buckets.isEmpty { grow() }
        let found = find(key, hash: hash)
        var bucket = found.bucket
        if let slot = found.slot {
            costs.subtract(nodes[slot].cost)
            costs.add(cost)
            nodes[slot].value = value
            nodes[slot].cost = cost
            nodes[slot].storedAt = storedAt
            nodes[slot].expiresAt = expiresAt
            replaceValidators(of: slot, with: validators)
            moveToHead(slot)
            return false
        }
        let slot: Int
        let evicts = liveCount >= countLimit && tail >= 0
        if evicts {
            // Evict first and reuse the node in place; the removal may shift cells, so probe again (integer
            // compares only: the key is known to be absent).
            slot = tail
            removeSlot(slot)
            bucket = emptyBucket(for: hash)
            nodes[slot].key = key
            nodes[slot].hash = hash
            nodes[slot].value = value
            nodes[slot].cost = cost
            nodes[slot].storedAt = storedAt
            nodes[slot].expiresAt = expiresAt
            nodes[slot].validators = validators
            indexTags(of: slot)
            nodes[slot].previous = -1
            nodes[slot].next = head
        } else {
            if (liveCount + 1) * 2 > buckets.count {
                grow()
                bucket = emptyBucket(for: hash)
            }
            let node = Node(
                key: key,
                hash: hash,
                value: value,
                cost: cost,
                storedAt: storedAt,
                expiresAt: expiresAt,
                validators: validators,
                previous: -1,
                next: head
            )
            slot = nodes.store(node, reusing: &freeSlots)
        }
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        buckets[bucket] = Bucket(slotPlusOne: slot + 1, hash: hash)
        liveCount += 1
        costs.add(cost)
        if validators != nil { indexTags(of: slot) }
        return evicts
    }

    /// Removes the entry for `key`; returns whether there was one.
    @discardableResult
    @inlinable
    mutating func remove(_ key: String) -> Bool {
        guard let slot = slot(of: key) else { return false }
        removeSlot(slot)
        release(slot)
        compactIfSparse()
        return true
    }

    /// Removes the least recently used entry; returns whether there was one.
    @discardableResult
    @inlinable
    mutating func removeLeastRecentlyUsed() -> Bool {
        guard tail >= 0 else { return false }
        let slot = tail
        removeSlot(slot)
        release(slot)
        compactIfSparse()
        return true
    }

    /// The key of the least recently used entry.
    @inlinable
    var leastRecentlyUsedKey: String? { tail >= 0 ? nodes[tail].key : nil }

    /// Removes every entry.
    @inlinable
    mutating func removeAll() {
        nodes.removeAll()
        freeSlots.removeAll()
        buckets.removeAll()
        liveCount = 0
        head = -1
        tail = -1
        costs = SizeTotal()
        keysByTag.removeAll()
    }

    /// The keys from most to least recently used.
    @inlinable
    var keysByRecency: [String] {
        var keys: [String] = []
        keys.reserveCapacity(count)
        var slot = head
        while slot >= 0 {
            keys.append(nodes[slot].key)
            slot = nodes[slot].next
        }
        return keys
    }

    @inlinable
    mutating func moveToHead(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        nodes[slot].previous = -1
        nodes[slot].next = head
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous
        let next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = -1
        nodes[slot].next = -1
    }

    // MARK: - Index

    /// The cell holding `key` and its slot, or the empty cell where it would go and `nil`.
    ///
    /// Requires a non-empty table; it always has an empty cell, so the probe ends.
    @inlinable
    func find(_ key: String, hash: Int) -> (bucket: Int, slot: Int?) {
        let mask = buckets.count - 1
        var bucket = hash & mask
        while true {
            let cell = buckets[bucket]
            if cell.slotPlusOne == 0 { return (bucket, nil) }
            if cell.hash == hash, nodes[cell.slotPlusOne - 1].key == key { return (bucket, cell.slotPlusOne - 1) }
            bucket = (bucket + 1) & mask
        }
    }

    /// The first empty cell of the probe run of `hash`.
    @inlinable
    func emptyBucket(for hash: Int) -> Int {
        let mask = buckets.count - 1
        var bucket = hash & mask
        while buckets[bucket].slotPlusOne != 0 { bucket = (bucket + 1) & mask }
        return bucket
    }

    /// Takes a live node out of the list and the index, leaving its contents for the caller to reuse or
    /// release.
    @inlinable
    mutating func removeSlot(_ slot: Int) {
        unindexTags(of: slot)
        unlink(slot)
        costs.subtract(nodes[slot].cost)
        liveCount -= 1
        let mask = buckets.count - 1
        var hole = nodes[slot].hash & mask
        while buckets[hole].slotPlusOne != slot + 1 { hole = (hole + 1) & mask }
        // Backward-shift deletion: move later cells of the run into the hole when their home allows it, so
        // lookups never need tombstones. The stored hashes spare any rehashing of keys.
        var cursor = hole
        while true {
            cursor = (cursor + 1) & mask
            let cell = buckets[cursor]
            if cell.slotPlusOne == 0 { break }
            let home = cell.hash & mask
            // The cell may move into the hole unless its home lies cyclically in (hole, cursor].
            let staysPut = hole <= cursor ? (home > hole && home <= cursor) : (home > hole || home <= cursor)
            if !staysPut {
                buckets[hole] = cell
                hole = cursor
            }
        }
        buckets[hole] = .empty
    }

    /// Frees a node that ``removeSlot(_:)`` took out (its slot stays in the array for reuse, until
    /// ``compactIfSparse()``).
    @inlinable
    mutating func release(_ slot: Int) {
        nodes[slot].value = nil
        nodes[slot].validators = nil
        nodes[slot].key = ""
        freeSlots.append(slot)
    }

    /// Doubles the index (16 cells at first) and reinserts every cell by its stored hash.
    @usableFromInline
    mutating func grow() {
        let old = buckets
        let newCount = max(16, old.count * 2)
        buckets = Array(repeating: .empty, count: newCount)
        for cell in old where cell.slotPlusOne != 0 {
            buckets[emptyBucket(for: cell.hash)] = cell
        }
    }
}

extension LRUStorage: Sendable where Value: Sendable {}

extension LRUStorage.Node: Sendable where Value: Sendable {}

extension LRUStorage.Bucket: Sendable {}
