extension Array {
    /// The entries of a list answer matched to the keys asked, `nil` for a key the source did not answer.
    ///
    /// A source answers a list of keys in the order asked, so an answer of as many entries as keys is matched by
    /// position. A shorter (or longer) answer is matched by the values' identity: an `Identifiable` value belongs
    /// to the key that is its id's description, as ``IdQuery`` and ``IdsQuery`` make keys.
    ///
    /// - Parameter keys: The keys asked, in order.
    /// - Throws: ``StrataError/Code/notFound`` for an answer of another length whose values are not
    ///   `Identifiable`: which keys it left out is unknown.
    func matched<Value: Sendable>(to keys: [String]) throws -> [StoredEntry<Value>?]
    where Element == StoredEntry<Value> {
        if count == keys.count { return self }
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

/// The key of an `Identifiable` value: its id's description.
private func key<Value: Identifiable>(of value: Value) -> String {
    String(describing: value.id)
}
