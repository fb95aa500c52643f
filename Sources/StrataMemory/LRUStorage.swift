import Foundation

/// The state behind ``MemoryDataSource``: a dictionary into a doubly linked list kept in arrays.
///
/// Index-linked nodes make get, put and eviction O(1) without a reference-counted object per entry.
/// The list runs from the most recently used entry (`head`) to the least recently used (`tail`).
/// Not thread-safe: ``MemoryDataSource`` owns it inside a lock.
@usableFromInline
struct LRUStorage<Value> {
    @usableFromInline
    struct Node {
        @usableFromInline var key: String
        @usableFromInline var value: Value?
        @usableFromInline var cost: Int
        @usableFromInline var storedAt: Date
        @usableFromInline var expiresAt: Date?
        @usableFromInline var previous: Int
        @usableFromInline var next: Int

        @inlinable
        init(
            key: String,
            value: Value?,
            cost: Int,
            storedAt: Date,
            expiresAt: Date?,
            previous: Int,
            next: Int
        ) {
            self.key = key
            self.value = value
            self.cost = cost
            self.storedAt = storedAt
            self.expiresAt = expiresAt
            self.previous = previous
            self.next = next
        }
    }

    @usableFromInline var nodes: [Node] = []
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var index: [String: Int] = [:]
    @usableFromInline var head = -1
    @usableFromInline var tail = -1

    /// The sum of the costs of the live entries.
    @usableFromInline var totalCost = 0

    @inlinable
    init() {}

    /// The number of live entries.
    @inlinable
    var count: Int { index.count }

    /// Returns the slot of the entry and marks it most recently used.
    @inlinable
    mutating func touch(_ key: String) -> Int? {
        guard let slot = index[key] else { return nil }
        moveToHead(slot)
        return slot
    }

    /// Returns the slot of the entry without changing the order.
    @inlinable
    func slot(of key: String) -> Int? { index[key] }

    /// Inserts or replaces the entry for `key` and marks it most recently used.
    @inlinable
    mutating func set(_ key: String, value: Value, cost: Int, storedAt: Date, expiresAt: Date?) {
        if let slot = index[key] {
            totalCost += cost - nodes[slot].cost
            nodes[slot].value = value
            nodes[slot].cost = cost
            nodes[slot].storedAt = storedAt
            nodes[slot].expiresAt = expiresAt
            moveToHead(slot)
            return
        }
        let node = Node(
            key: key,
            value: value,
            cost: cost,
            storedAt: storedAt,
            expiresAt: expiresAt,
            previous: -1,
            next: head
        )
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        index[key] = slot
        totalCost += cost
    }

    /// Removes the entry for `key`; returns whether there was one.
    @discardableResult
    @inlinable
    mutating func remove(_ key: String) -> Bool {
        guard let slot = index.removeValue(forKey: key) else { return false }
        unlink(slot)
        totalCost -= nodes[slot].cost
        nodes[slot].value = nil
        nodes[slot].key = ""
        freeSlots.append(slot)
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
        index.removeAll()
        head = -1
        tail = -1
        totalCost = 0
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
}

extension LRUStorage: Sendable where Value: Sendable {}

extension LRUStorage.Node: Sendable where Value: Sendable {}
