extension Array {
    /// Stores `element` in the slot freed last (taken from `freeSlots`), or appends it when no slot is free;
    /// returns its slot.
    ///
    /// The one slot rule of the stores' least-recently-used lists, whose elements link to each other by slot: a
    /// removed element's slot goes to `freeSlots` and the next insertion takes it again, so the array holds no
    /// more slots than the most elements ever held at once.
    @inlinable
    package mutating func store(_ element: Element, reusing freeSlots: inout [Int]) -> Int {
        if let free = freeSlots.popLast() {
            self[free] = element
            return free
        }
        append(element)
        return count - 1
    }
}
