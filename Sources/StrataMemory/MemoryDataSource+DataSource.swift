import Strata

// Every async method comes from the one query dispatcher of `KeyValueStore`, specialised here through `@inlinable`:
// a `get` of a `KeyQuery` compares the opened existential's type, takes one lock and allocates nothing.
extension MemoryDataSource: KeyValueStore {
    /// The configuration's key function, for `putAll(_:in: AllObjectsQuery())`.
    public var keyOfValue: (@Sendable (Value) -> String)? { configuration.key }
}
