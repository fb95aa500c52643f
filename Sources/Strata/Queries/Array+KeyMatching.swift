extension Array {
    /// The entries of a list answer matched to the keys asked, `nil` for a key the source did not answer.
    ///
    /// A source answers a list of keys in the order asked, so an answer of as many entries as keys is matched by
    /// position — unless its values are `Identifiable` and their ids are the keys in another order (a server that
    /// answers sorted): then each value goes to its own key, never under another's. A shorter (or longer) answer is
    /// matched by the values' identity: an `Identifiable` value belongs to the key that is its id's description, as
    /// ``IdQuery`` and ``IdsQuery`` make keys.
    ///
    /// - Parameter keys: The keys asked, in order.
    /// - Throws: ``StrataError/Code/notFound`` for an answer of another length whose values are not
    ///   `Identifiable`: which keys it left out is unknown.
    func matched<Value: Sendable>(to keys: [String]) throws -> [StoredEntry<Value>?]
    where Element == StoredEntry<Value> {
        if count == keys.count, !isReordering(keys) { return self }
        var byKey: [String: StoredEntry<Value>] = [:]
        for entry in self {
            guard let identified = entry.value as? any Identifiable else {
                throw StrataError(
                    .notFound,
                    "The source answered \(count) values for \(keys.count) keys and \(Value.self) is not "
                        + "Identifiable, so which keys it did not find is unknown"
                )
            }
            byKey[key(of: identified)] = entry
        }
        return keys.map { byKey[$0] }
    }
}

extension Array {
    /// Whether this answer of as many entries as `keys` holds `Identifiable` values whose ids are `keys` in another
    /// order; `false` when a value is not `Identifiable`, or when the ids are not the keys (keys of the app's own
    /// making): position is then all there is to go by.
    fileprivate func isReordering<Value: Sendable>(_ keys: [String]) -> Bool where Element == StoredEntry<Value> {
        var ids: [String] = []
        ids.reserveCapacity(count)
        for entry in self {
            guard let identified = entry.value as? any Identifiable else { return false }
            ids.append(key(of: identified))
        }
        return ids != keys && ids.sorted() == keys.sorted()
    }
}

/// The key of an `Identifiable` value: its id's description.
private func key<Value: Identifiable>(of value: Value) -> String {
    String(describing: value.id)
}
