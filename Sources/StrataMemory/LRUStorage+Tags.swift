extension LRUStorage {
    /// Replaces a live node's validators, moving its key between tags in the index.
    @inlinable
    mutating func replaceValidators(of slot: Int, with validators: EntryValidators?) {
        unindexTags(of: slot)
        nodes[slot].validators = validators
        indexTags(of: slot)
    }

    /// Adds a live node's key under each of its tags.
    @inlinable
    mutating func indexTags(of slot: Int) {
        guard let tags = nodes[slot].validators?.tags, !tags.isEmpty else { return }
        let key = nodes[slot].key
        for tag in tags { keysByTag[tag, default: []].insert(key) }
    }

    /// Removes a node's key from under each of its tags.
    @inlinable
    mutating func unindexTags(of slot: Int) {
        guard let tags = nodes[slot].validators?.tags, !tags.isEmpty else { return }
        let key = nodes[slot].key
        for tag in tags {
            keysByTag[tag]?.remove(key)
            if keysByTag[tag]?.isEmpty == true { keysByTag[tag] = nil }
        }
    }

    /// The keys tagged `tag`, in ascending order.
    func keys(taggedWith tag: String) -> [String] {
        (keysByTag[tag] ?? []).sorted()
    }
}
