import Foundation
import Strata

// Every async method comes from the one query dispatcher of `KeyValueStore`: keyed, multi-key and listing
// queries, the list rule and the key rule, the same as every store.
extension FileDataSource: KeyValueStore {
    /// The store keeps bytes.
    public typealias Value = Data

    /// The configuration's key function, for `putAll(_:in: AllObjectsQuery())`.
    public var keyOfValue: (@Sendable (Data) -> String)? { configuration.key }

    /// The keys of the entries tagged `tag`, in ascending order, from the index's map of tags: what
    /// `delete(TagQuery(tag))` removes. Tags are kept in each entry file's trailer (version 5), so they survive a
    /// reopen.
    ///
    /// A write replaces an entry's tags with those it gives (none for a plain `put`); a renewal without tags keeps
    /// them.
    public func keys(taggedWith tag: String) -> [String]? {
        state.withLock { ($0.index.keysByTag[tag] ?? []).sorted() }
    }

    /// ``Configuration/maximumReadSize``: a read of several entries loads at most that much data in all, as a read
    /// of one loads at most that much of it.
    public var maximumReadSize: Int? { configuration.maximumReadSize }

    /// The size of the data of the entry under `key`, from the index (no file is read); `nil` when there is none.
    ///
    /// - Parameter key: The key.
    public func storedSize(forKey key: String) -> Int? {
        let name = EntryName(key: key)
        return state.withLock { state in
            guard let entry = state.index.entry(name), entry.trailer.key == key else { return nil }
            return entry.trailer.payloadSize
        }
    }
}
