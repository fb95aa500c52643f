/// A get part's calls and capabilities, as closures over the part (``AssemblerParts``).
@usableFromInline
struct DataSourceReads<Value: Sendable>: Sendable {
    @usableFromInline let get: nonisolated(nonsending) @Sendable (any Query) async throws -> Value
    @usableFromInline let getAll: nonisolated(nonsending) @Sendable (any Query) async throws -> [Value]
    @usableFromInline let getEntry: nonisolated(nonsending) @Sendable (any Query) async throws -> StoredEntry<Value>
    @usableFromInline let getAllEntries:
        nonisolated(nonsending) @Sendable (any Query) async throws -> [StoredEntry<Value>]
    @usableFromInline let getIfModified:
        nonisolated(nonsending) @Sendable (any Query, EntryMetadata) async throws -> ConditionalRead<Value>
    @usableFromInline let origin: @Sendable () -> DataOrigin
    @usableFromInline let readsWithoutBlocking: @Sendable () -> Bool

    @inlinable
    init(_ source: some GetDataSource<Value>) {
        get = { try await source.get($0) }
        getAll = { try await source.getAll($0) }
        getEntry = { try await source.getEntry($0) }
        getAllEntries = { try await source.getAllEntries($0) }
        getIfModified = { try await source.getIfModified($0, since: $1) }
        origin = { source.origin }
        readsWithoutBlocking = { source.readsWithoutBlocking }
    }
}

/// A put part's calls and capabilities, as closures over the part (``AssemblerParts``).
@usableFromInline
struct DataSourceWrites<Value: Sendable>: Sendable {
    @usableFromInline let put: nonisolated(nonsending) @Sendable (Value, any Query) async throws -> Value
    @usableFromInline let putAll: nonisolated(nonsending) @Sendable ([Value], any Query) async throws -> [Value]
    @usableFromInline let putEntry:
        nonisolated(nonsending) @Sendable (StoredEntry<Value>, any Query) async throws -> Value
    @usableFromInline let putAllEntries:
        nonisolated(nonsending) @Sendable ([StoredEntry<Value>], any Query) async throws -> [Value]
    @usableFromInline let renewMetadata:
        nonisolated(nonsending) @Sendable (EntryMetadata, any Query) async throws -> Bool
    @usableFromInline let changes: @Sendable (String?) -> AsyncStream<DataChange>
    /// The write stamps the part keeps, when it is a store or a wrapper of one (``WriteStampedCache``).
    @usableFromInline let writeStamps: CacheWriteStamps?

    @inlinable
    init(_ source: some PutDataSource<Value>) {
        put = { try await source.put($0, in: $1) }
        putAll = { try await source.putAll($0, in: $1) }
        putEntry = { try await source.putEntry($0, in: $1) }
        putAllEntries = { try await source.putAllEntries($0, in: $1) }
        renewMetadata = { try await source.renewMetadata($0, in: $1) }
        changes = { source.changes(forKey: $0) }
        writeStamps = CacheWriteStamps.kept(by: source)
    }
}

/// A delete part's call, as a closure over the part (``AssemblerParts``).
@usableFromInline
typealias DataSourceDeletes = nonisolated(nonsending) @Sendable (any Query) async throws -> Void
