extension Array {
    /// The entries of a list answer matched to the keys asked, `nil` for a key the source did not answer.
    ///
    /// A source answers a list of keys in the order asked, so an answer of as many entries as keys is matched by
    /// position — unless its values are `Identifiable` and their ids are keys asked, but not the keys in their order
    /// (a server that answers sorted, or sends one value twice in place of another): then each value goes to its own
    /// key, never under another's, and a key no value is of is not found. A shorter (or longer) answer is matched by
    /// the values' identity: an `Identifiable` value belongs to the key that is its id's description, as ``IdQuery``
    /// and ``IdsQuery`` make keys.
    ///
    /// - Parameter keys: The keys asked, in order.
    /// - Throws: ``StrataError/Code/notFound`` for an answer of another length whose values are not
    ///   `Identifiable`: which keys it left out is unknown.
    func matched<Value: Sendable>(to keys: [String]) throws -> [StoredEntry<Value>?]
    where Element == StoredEntry<Value> {
        if count == keys.count, isMatchedByPosition(keys) { return self }
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
    /// Whether this answer of as many entries as `keys` goes to the keys by position: its values are not all
    /// `Identifiable`, or their ids are `keys` in order, or none of their ids is a key (keys of the app's own making,
    /// where position is all there is to go by). Values whose ids are keys, but not the keys in order (reordered, or
    /// one twice in place of another), go by their ids.
    fileprivate func isMatchedByPosition<Value: Sendable>(_ keys: [String]) -> Bool
    where Element == StoredEntry<Value> {
        guard let ids = map(\.value).identityKeys() else { return true }
        if ids == keys { return true }
        let asked = Set(keys)
        return !ids.contains(where: asked.contains)
    }
}

extension Array {
    /// The keys of these values' identities (each id's description, as ``IdQuery`` and ``IdsQuery`` make keys), in
    /// order; `nil` when a value is not `Identifiable`.
    func identityKeys() -> [String]? {
        var ids: [String] = []
        ids.reserveCapacity(count)
        for value in self {
            guard let identified = value as? any Identifiable else { return nil }
            ids.append(key(of: identified))
        }
        return ids
    }
}

/// The key of an `Identifiable` value: its id's description.
private func key<Value: Identifiable>(of value: Value) -> String {
    String(describing: value.id)
}
