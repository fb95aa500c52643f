import Strata

/// A store that forwards every call to `base` and, the first time a tag's keys are listed, makes a write of its own
/// in `base` right after the listing: what another task's write between `delete(TagQuery)`'s listing and its
/// removals does.
package struct WritingAfterTagListing<Base: KeyValueStore>: KeyValueStore {
    package typealias Value = Base.Value

    /// The store every call goes to.
    package let base: Base
    private let write: @Sendable (Base) throws -> Void
    private let hasWritten = Locked(false)

    /// Wraps `base`; `write` runs once, after the first listing of a tag's keys.
    package init(_ base: Base, afterTheListing write: @escaping @Sendable (Base) throws -> Void) {
        self.base = base
        self.write = write
    }

    package func keys(taggedWith tag: String) -> [String]? {
        let keys = base.keys(taggedWith: tag)
        let isFirst = hasWritten.withLock { written in
            defer { written = true }
            return !written
        }
        // A write that fails leaves its key out: the test that reads it back sees that.
        if isFirst { try? write(base) }
        return keys
    }

    package func removeValue(forKey key: String, ifTagged tag: String) throws -> Bool {
        try base.removeValue(forKey: key, ifTagged: tag)
    }

    package func entry(forKey key: String) throws -> StoredEntry<Value>? { try base.entry(forKey: key) }

    package func setValue(_ value: Value, forKey key: String, metadata: EntryMetadata) throws {
        try base.setValue(value, forKey: key, metadata: metadata)
    }

    package func renewMetadata(_ metadata: EntryMetadata, forKey key: String) throws -> Bool {
        try base.renewMetadata(metadata, forKey: key)
    }

    package func removeValue(forKey key: String) throws -> Bool { try base.removeValue(forKey: key) }

    package func removeAll() throws { try base.removeAll() }

    package func sortedKeys() -> [String] { base.sortedKeys() }

    package var keyOfValue: (@Sendable (Value) -> String)? { base.keyOfValue }

    package var storedListAnswer: StoredListAnswer { base.storedListAnswer }
}
