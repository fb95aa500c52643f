import struct Foundation.Date

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

extension ValidatedDataSource: DataSourceCapabilities where Source: DataSourceCapabilities {
    /// The wrapped source's origin.
    public var origin: DataOrigin { source.origin }

    /// The wrapped source's changes.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> { source.changes(forKey: key) }

    /// Whether the wrapped source reads without blocking.
    @inlinable public var readsWithoutBlocking: Bool { source.readsWithoutBlocking }
}

extension ValidatedDataSource: GetDataSource where Source: GetDataSource, V.Value == Source.Value {
    /// Reads the value and validates it.
    ///
    /// - Throws: ``StrataError/Code/notValid`` with the value as payload when validation fails.
    public func get(_ query: any Query) async throws -> Source.Value {
        try await getEntry(query).value
    }

    /// Reads the values and validates each; one invalid value makes the whole answer invalid.
    ///
    /// - Throws: ``StrataError/Code/notValid`` with all the values as payload when one fails.
    public func getAll(_ query: any Query) async throws -> [Source.Value] {
        try await getAllEntries(query).map { $0.value }
    }

    /// Reads the entry and validates its value, so a validated cache still tells its metadata.
    ///
    /// - Throws: ``StrataError/Code/notValid`` with the value as payload (and the entry as
    ///   ``StrataError/staleEntry(as:)``) when validation fails.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Source.Value> {
        let entry = try await source.getEntry(query)
        let context = ValidationContext(entry.metadata)
        guard validator.isValid(entry.value, context: context) else {
            throw StrataError.notValid(
                staleEntry: entry,
                staleSince: validator.staleSince(entry.value, context: context)
            )
        }
        return entry
    }

    /// Reads the entries and validates each; one invalid value makes the whole answer invalid.
    ///
    /// - Throws: ``StrataError/Code/notValid`` with all the values as payload when one fails.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Source.Value>] {
        let entries = try await source.getAllEntries(query)
        var staleDates: [Date?] = []
        for entry in entries {
            let context = ValidationContext(entry.metadata)
            if !validator.isValid(entry.value, context: context) {
                staleDates.append(validator.staleSince(entry.value, context: context))
            }
        }
        guard staleDates.isEmpty else {
            // The answer went stale with its first refused entry; when one of them cannot tell, nobody can.
            let known = staleDates.compactMap { $0 }
            let staleSince = known.count == staleDates.count ? known.min() : nil
            throw StrataError.notValid(staleEntries: entries, staleSince: staleSince)
        }
        return entries
    }

    /// Reads conditionally from the source; a new entry is not validated (it is what the source has now).
    public func getIfModified(
        _ query: any Query,
        since metadata: EntryMetadata
    ) async throws -> ConditionalRead<Source.Value> {
        try await source.getIfModified(query, since: metadata)
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

    /// Writes through to the source, metadata included.
    public func putEntry(_ entry: StoredEntry<Source.Value>, in query: any Query) async throws -> Source.Value {
        try await source.putEntry(entry, in: query)
    }

    /// Writes through to the source, metadata included.
    public func putAllEntries(
        _ entries: [StoredEntry<Source.Value>],
        in query: any Query
    ) async throws -> [Source.Value] {
        try await source.putAllEntries(entries, in: query)
    }

    /// Renews the metadata in the source.
    public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        try await source.renewMetadata(metadata, in: query)
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
