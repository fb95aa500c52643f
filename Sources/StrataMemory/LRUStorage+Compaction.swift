import Strata

extension LRUStorage {
    /// Whether at most a quarter of the node array holds entries (and it has more than 64 nodes): the state in which
    /// ``compact()`` gives memory back.
    @inlinable
    var isSparse: Bool { nodes.count > 64 && liveCount <= nodes.count / 4 }

    /// Gives back the room of removed entries when the store holds a quarter of the nodes it once had, or fewer:
    /// a store that held a million entries and now holds a thousand keeps the arrays of a thousand, not of a
    /// million (freed nodes are reused, but were never released).
    ///
    /// The live nodes are copied, from the most to the least recently used, into an array of their own size, and
    /// the index is rebuilt for that count from the stored hashes (no key is hashed again). O(live entries), and
    /// only after three quarters of the nodes were removed since the arrays last grew, so O(1) amortized per
    /// removal. Slots change: call it only where no slot is held.
    @inlinable
    mutating func compactIfSparse() {
        guard isSparse else { return }
        var compacted: [Node] = []
        compacted.reserveCapacity(liveCount)
        var slot = head
        while slot >= 0 {
            var node = nodes[slot]
            slot = node.next
            let position = compacted.count
            node.previous = position - 1
            node.next = slot >= 0 ? position + 1 : -1
            compacted.append(node)
        }
        nodes = compacted
        freeSlots = []
        head = nodes.isEmpty ? -1 : 0
        tail = nodes.count - 1
        var cells = 16
        while cells < (liveCount + 1) * 2 { cells *= 2 }
        buckets = Array(repeating: .empty, count: cells)
        for position in nodes.indices {
            buckets[emptyBucket(for: nodes[position].hash)] = Bucket(
                slotPlusOne: position + 1,
                hash: nodes[position].hash
            )
        }
    }
}
