import Foundation

/// A data source that converts the values of another source with mappers in both directions.
///
/// Build it with `mapped(to:from:)` or ``GetDataSource/decoding(_:decoder:encoder:)``.
public struct MappedDataSource<Source: Sendable, SourceValue: Sendable, Value: Sendable>: Sendable {
    /// The wrapped source.
    public let source: Source

    private let conversion: ValueConversion<SourceValue, Value>

    /// Wraps a source with two mappers.
    ///
    /// - Parameters:
    ///   - source: The source whose values are converted.
    ///   - toValue: Converts what the source returns.
    ///   - toSourceValue: Converts what is written to the source.
    public init(
        _ source: Source,
        toValue: some Mapper<SourceValue, Value>,
        toSourceValue: some Mapper<Value, SourceValue>
    ) {
        self.source = source
        self.conversion = ValueConversion(toValue: toValue, toStored: toSourceValue)
    }
}

extension MappedDataSource: DataSourceCapabilities where Source: DataSourceCapabilities {
    /// The wrapped source's origin.
    public var origin: DataOrigin { source.origin }

    /// The wrapped source's changes.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> { source.changes(forKey: key) }

    /// Whether the wrapped source reads without blocking.
    @inlinable public var readsWithoutBlocking: Bool { source.readsWithoutBlocking }
}

extension MappedDataSource: GetDataSource where Source: GetDataSource, Source.Value == SourceValue {
    /// Reads from the source and converts the value.
    ///
    /// - Throws: The source's error (a *not valid* one with its stale value converted), or
    ///   ``StrataError/Code/dataSerialization`` when conversion fails.
    public func get(_ query: any Query) async throws -> Value {
        try await conversion.convertingPayload { try conversion.value(await source.get(query)) }
    }

    /// Reads from the source and converts the values.
    public func getAll(_ query: any Query) async throws -> [Value] {
        try await conversion.convertingPayload { try conversion.values(await source.getAll(query)) }
    }

    /// Reads the entry from the source and converts its value; the metadata is kept.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Value> {
        try await conversion.convertingPayload { try conversion.entry(await source.getEntry(query)) }
    }

    /// Reads the entries from the source and converts their values; the metadata is kept.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
        try await conversion.convertingPayload { try conversion.entries(await source.getAllEntries(query)) }
    }

    /// Reads conditionally from the source and converts a new value.
    public func getIfModified(_ query: any Query, since metadata: EntryMetadata) async throws -> ConditionalRead<Value>
    {
        switch try await source.getIfModified(query, since: metadata) {
        case .modified(let entry): .modified(try conversion.entry(entry))
        case .notModified(let renewed): .notModified(renewed)
        }
    }
}

extension MappedDataSource: PutDataSource where Source: PutDataSource, Source.Value == SourceValue {
    /// Converts the value, writes it to the source and converts what the source returns (and the values its error
    /// carries).
    ///
    /// - Throws: The source's error; ``StrataError/Code/dataSerialization`` when the value does not convert (nothing
    ///   was written), or when what the source returns does not: the source took the write, so that error says
    ///   ``StrataError/mayHaveTakenEffect``, as for every write of this source.
    public func put(_ value: Value, in query: any Query) async throws -> Value {
        try await conversion.convertingPayload {
            try conversion.written(await source.put(conversion.stored(value), in: query))
        }
    }

    /// Converts the values, writes them to the source and converts what the source returns.
    public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        try await conversion.convertingPayload {
            try conversion.written(await source.putAll(conversion.stored(values), in: query))
        }
    }

    /// Converts the entry's value and writes it with its metadata.
    public func putEntry(_ entry: StoredEntry<Value>, in query: any Query) async throws -> Value {
        try await conversion.convertingPayload {
            try conversion.written(await source.putEntry(conversion.storedEntry(entry), in: query))
        }
    }

    /// Converts the entries' values and writes them with their metadata.
    public func putAllEntries(_ entries: [StoredEntry<Value>], in query: any Query) async throws -> [Value] {
        try await conversion.convertingPayload {
            try conversion.written(await source.putAllEntries(conversion.storedEntries(entries), in: query))
        }
    }

    /// Renews the metadata in the source.
    public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        try await source.renewMetadata(metadata, in: query)
    }
}

extension MappedDataSource: DeleteDataSource where Source: DeleteDataSource {
    /// Deletes through to the source.
    public func delete(_ query: any Query) async throws {
        try await source.delete(query)
    }
}

extension MappedDataSource: DataSource where Source: DataSource, Source.Value == SourceValue {}

// MARK: - Wrapping

extension GetDataSource {
    /// Wraps this source so that it serves values converted by `toValue` and stores values converted
    /// by `fromValue`.
    ///
    /// - Parameters:
    ///   - toValue: Converts what this source holds into what callers see.
    ///   - fromValue: Converts what callers write into what this source holds.
    public func mapped<NewValue>(
        to toValue: some Mapper<Value, NewValue>,
        from fromValue: some Mapper<NewValue, Value>
    ) -> MappedDataSource<Self, Value, NewValue> {
        MappedDataSource(self, toValue: toValue, toSourceValue: fromValue)
    }

    /// Wraps this source so that it serves values converted by closures in both directions.
    ///
    /// - Parameters:
    ///   - toValue: Converts what this source holds into what callers see.
    ///   - fromValue: Converts what callers write into what this source holds.
    public func mapped<NewValue>(
        to toValue: @escaping @Sendable (Value) throws -> NewValue,
        from fromValue: @escaping @Sendable (NewValue) throws -> Value
    ) -> MappedDataSource<Self, Value, NewValue> {
        MappedDataSource(self, toValue: ClosureMapper(toValue), toSourceValue: ClosureMapper(fromValue))
    }
}

extension GetDataSource where Value == Data {
    /// Wraps a source of JSON `Data` so that it serves and stores `Codable` values.
    ///
    /// - Parameters:
    ///   - type: The value type.
    ///   - decoder: Makes the decoder for reads.
    ///   - encoder: Makes the encoder for writes.
    public func decoding<NewValue: Codable & Sendable>(
        _ type: NewValue.Type,
        decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
        encoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() }
    ) -> MappedDataSource<Self, Data, NewValue> {
        MappedDataSource(
            self,
            toValue: DataToDecodableMapper(decoder: decoder),
            toSourceValue: EncodableToDataMapper(encoder: encoder)
        )
    }
}
