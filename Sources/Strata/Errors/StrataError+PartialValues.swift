/// The payload of a list read that found some of the keys it named: the values found, `nil` for the others.
struct PartialValues<Value: Sendable>: Sendable {
    let values: [Value?]
}

extension StrataError {
    /// A *not found* error for a list read that found only some of its keys, carrying what it found.
    ///
    /// - Parameters:
    ///   - values: One element per key asked, in order: the value, or `nil` for a key that was not found.
    ///   - missingKeys: The keys that were not found.
    package static func partial<Value: Sendable>(_ values: [Value?], missingKeys: [String]) -> StrataError {
        let shown = missingKeys.prefix(5).map { quoted(key: $0) }.joined(separator: ", ")
        let more = missingKeys.count > 5 ? " and \(missingKeys.count - 5) more" : ""
        return StrataError(
            .notFound,
            "\(missingKeys.count) of \(values.count) keys were not found: \(shown)\(more)",
            payload: PartialValues(values: values)
        )
    }

    /// The values a list read found when it found only some of its keys: one element per key asked, in order,
    /// `nil` for a key that was not found.
    ///
    /// A ``CacheRepository`` reading an ``IdsQuery`` throws ``Code/notFound`` with these when main answers fewer
    /// values than it was asked for; the found ones are in the cache already.
    ///
    /// - Parameter type: The value type.
    public func partialValues<Value: Sendable>(as type: Value.Type = Value.self) -> [Value?]? {
        (payload as? PartialValues<Value>)?.values
    }

    /// The entries of a list read's *not found* error that carries one value per key asked, `nil` for a key it did
    /// not find; `nil` for any other error.
    ///
    /// The error carries values only (see ``partialValues(as:)``), so each entry has empty metadata.
    ///
    /// - Parameter keyCount: The number of keys the list read asked for.
    func partialEntries<Value: Sendable>(as type: Value.Type, keyCount: Int) -> [StoredEntry<Value>?]? {
        guard code == .notFound, let values = partialValues(as: type), values.count == keyCount else { return nil }
        return values.map { $0.map { StoredEntry(value: $0, metadata: EntryMetadata()) } }
    }
}
