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

    /// The size of the data of the live entry under `key`, from the index (no file is read): `0` for an entry over
    /// ``Configuration/maximumReadSize``, which a read misses without loading it; `nil` when there is none.
    ///
    /// - Parameter key: The key.
    public func storedSize(forKey key: String) -> Int? {
        info(forKey: key).map { $0.size <= configuration.maximumReadSize ? $0.size : 0 }
    }
}
