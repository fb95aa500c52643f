import Foundation
import Strata

// Every async method comes from the one query dispatcher of `KeyValueStore`: keyed, multi-key and listing
// queries, the list rule and the key rule, the same as every store. Keyed reads mark their entries most recently
// used; listings do not (`listedEntry(forKey:)`), and skip entries whose files turn out to be missing or corrupt.
extension JSONFileDataSource: KeyValueStore {
    /// The configuration's key function, for `putAll(_:in: AllObjectsQuery())`.
    public var keyOfValue: (@Sendable (Value) -> String)? { configuration.key }
}
