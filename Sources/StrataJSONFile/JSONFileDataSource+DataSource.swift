import Foundation
import Strata

// Every async method comes from the one query dispatcher of `KeyValueStore`: keyed, multi-key and listing
// queries, the list rule and the key rule, the same as every store. Keyed reads mark their entries most recently
// used; listings do not (`listedEntry(forKey:)`), and skip entries whose files turn out to be missing or corrupt.
extension JSONFileDataSource: KeyValueStore {
    /// The configuration's key function, for `putAll(_:in: AllObjectsQuery())`.
    public var keyOfValue: (@Sendable (Value) -> String)? { configuration.key }

    /// The keys of the entries tagged `tag`, in ascending order, from the index's map of tags: what
    /// `delete(TagQuery(tag))` removes. Tags are kept in the index journal and the entry files, so they survive a
    /// reopen and a rebuild of the index.
    ///
    /// A write replaces an entry's tags with those it gives (none for a plain `put`); a renewal without tags keeps
    /// them.
    public func keys(taggedWith tag: String) -> [String]? {
        (try? withStorage { ($0.keysByTag[tag] ?? []).sorted() }) ?? []
    }

    /// ``Configuration/maximumReadSize``: a read of several entries loads at most that much of their files in all.
    public var maximumReadSize: Int? { configuration.maximumReadSize }

    /// The length of the entry file under `key`, from the index (no file is read); `nil` when there is none, or the
    /// index has not measured it.
    ///
    /// - Parameter key: The key.
    public func storedSize(forKey key: String) -> Int? {
        (try? withStorage { $0.record(for: key)?.size }) ?? nil
    }
}
