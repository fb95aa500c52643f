import Foundation
import Strata

// Every async method comes from the one query dispatcher of `KeyValueStore`: keyed, multi-key and listing
// queries, the list rule and the key rule, the same as every store.
extension FileDataSource: KeyValueStore {
    /// The store keeps bytes.
    public typealias Value = Data

    /// The configuration's key function, for `putAll(_:in: AllObjectsQuery())`.
    public var keyOfValue: (@Sendable (Data) -> String)? { configuration.key }
}
