/// A data source whose reads fail with *not valid* when the value fails validation.
///
/// The error carries the invalid value as its payload (``StrataError/value(as:)``), so
/// ``CacheRepository`` can serve it stale when asked to. Writes and deletes pass through unchanged.
public struct ValidatedDataSource<Source: Sendable, V: Validator>: Sendable {
    /// The wrapped source.
    public let source: Source

    /// The validator applied to every value read.
    public let validator: V

    /// Wraps a source with a validator.
    ///
    /// - Parameters:
    ///   - source: The source to read from.
    ///   - validator: Decides whether each value read may be served.
    public init(_ source: Source, validator: V) {
        self.source = source
        self.validator = validator
    }
}

extension ValidatedDataSource: GetDataSource where Source: GetDataSource, V.Value == Source.Value {
    /// Reads the value and validates it.
    ///
    /// - Throws: ``StrataError/Code/notValid`` with the value as payload when validation fails.
    public func get(_ query: any Query) async throws -> Source.Value {
        let entry: StoredEntry<Source.Value>? =
            if let entries = source as? any StoredEntryDataSource<Source.Value> {
                try await entries.getEntry(query)
            } else {
                nil
            }
        let value = if let entry { entry.value } else { try await source.get(query) }
        guard validator.isValid(value, context: ValidationContext(storedAt: entry?.storedAt)) else {
            throw StrataError.notValid(staleValue: value)
        }
        return value
    }

    /// Reads the values and validates each; one invalid value makes the whole answer invalid.
    ///
    /// - Throws: ``StrataError/Code/notValid`` with all the values as payload when one fails.
    public func getAll(_ query: any Query) async throws -> [Source.Value] {
        let entries: [StoredEntry<Source.Value>]? =
            if let source = source as? any StoredEntryDataSource<Source.Value> {
                try await source.getAllEntries(query)
            } else {
                nil
            }
        let values = if let entries { entries.map(\.value) } else { try await source.getAll(query) }
        for (index, value) in values.enumerated() {
            let context = ValidationContext(storedAt: entries?[index].storedAt)
            guard validator.isValid(value, context: context) else {
                throw StrataError.notValid(staleValue: values)
            }
        }
        return values
    }
}

extension ValidatedDataSource: PutDataSource where Source: PutDataSource, V.Value == Source.Value {
    /// Writes through to the source.
    public func put(_ value: Source.Value, in query: any Query) async throws -> Source.Value {
        try await source.put(value, in: query)
    }

    /// Writes through to the source.
    public func putAll(_ values: [Source.Value], in query: any Query) async throws -> [Source.Value] {
        try await source.putAll(values, in: query)
    }
}

extension ValidatedDataSource: DeleteDataSource where Source: DeleteDataSource {
    /// Deletes through to the source.
    public func delete(_ query: any Query) async throws {
        try await source.delete(query)
    }
}

extension ValidatedDataSource: DataSource where Source: DataSource, V.Value == Source.Value {}

// MARK: - Wrapping

extension GetDataSource {
    /// Wraps this source so that reads fail with *not valid* when `validator` rejects the value.
    ///
    /// - Parameter validator: Decides whether each value read may be served.
    public func validated<V: Validator>(by validator: V) -> ValidatedDataSource<Self, V> where V.Value == Value {
        ValidatedDataSource(self, validator: validator)
    }
}
