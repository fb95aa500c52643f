/// A least-recently-used order kept in arrays: the one engine under the memory store's `LRUStorage` and the file
/// store's `EntryIndex`.
///
/// Elements live in slots of one array, linked both ways by slot number, from the most recently used (`head`) to
/// the least (`tail`): touch, insertion and removal of any slot are O(1) without a reference-counted object per
/// element, and a freed slot is reused by the next insertion. The list knows slots, not keys: its owner keeps the
/// index from a key to a slot, and clears a freed slot's element when it should not hold on to it. Not
/// thread-safe: the owner keeps it inside a lock.
@usableFromInline
package struct RecencyList<Element> {
    /// A slot: its element and its neighbours (`-1` at either end).
    @usableFromInline
    package struct Node {
        @usableFromInline package var element: Element
        @usableFromInline package var previous: Int
        @usableFromInline package var next: Int

        @inlinable
        package init(element: Element, previous: Int, next: Int) {
            self.element = element
            self.previous = previous
            self.next = next
        }
    }

    /// Every slot, linked and free.
    @usableFromInline package var nodes: [Node] = []
    /// The slots freed for reuse.
    @usableFromInline package var freeSlots: [Int] = []
    /// The most recently used slot, or `-1`.
    @usableFromInline package var head = -1
    /// The least recently used slot, or `-1`.
    @usableFromInline package var tail = -1

    /// An empty list.
    @inlinable
    package init() {}

    /// The element in `slot`.
    @inlinable
    package subscript(slot: Int) -> Element {
        _read { yield nodes[slot].element }
        _modify { yield &nodes[slot].element }
    }

    /// The least recently used slot, if any.
    @inlinable @inline(__always)
    package var leastRecentSlot: Int? { tail >= 0 ? tail : nil }

    /// Stores `element` in a free slot (or a new one) as the most recently used; returns the slot.
    @inlinable
    package mutating func insertFirst(_ element: Element) -> Int {
        let node = Node(element: element, previous: -1, next: head)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        linkFirst(slot)
        return slot
    }

    /// Links an unlinked slot in as the most recently used.
    @inlinable @inline(__always)
    package mutating func linkFirst(_ slot: Int) {
        nodes[slot].previous = -1
        nodes[slot].next = head
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    /// Makes a linked slot the most recently used.
    @inlinable @inline(__always)
    package mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        linkFirst(slot)
    }

    /// Takes a slot out of the order, leaving its element for the owner to reuse (``linkFirst(_:)``) or free
    /// (``free(_:)``).
    @inlinable @inline(__always)
    package mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous
        let next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = -1
        nodes[slot].next = -1
    }

    /// Makes an unlinked slot free for the next insertion.
    @inlinable @inline(__always)
    package mutating func free(_ slot: Int) {
        freeSlots.append(slot)
    }

    /// The elements from the most to the least recently used, transformed.
    ///
    /// - Parameters:
    ///   - count: How many slots are linked (the result's capacity).
    ///   - transform: Makes a result of an element.
    @inlinable
    package func byRecency<Result>(count: Int, _ transform: (Element) throws -> Result) rethrows -> [Result] {
        var results: [Result] = []
        results.reserveCapacity(count)
        var slot = head
        while slot >= 0 {
            results.append(try transform(nodes[slot].element))
            slot = nodes[slot].next
        }
        return results
    }

    /// Removes every slot.
    @inlinable
    package mutating func removeAll() {
        nodes.removeAll()
        freeSlots.removeAll()
        head = -1
        tail = -1
    }
}

extension RecencyList: Sendable where Element: Sendable {}

extension RecencyList.Node: Sendable where Element: Sendable {}
