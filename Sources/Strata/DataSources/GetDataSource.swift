/// A source that reads values: a memory store, a folder of files, an HTTP API.
///
/// Implement ``get(_:)`` for queries naming one value and ``getAll(_:)`` for queries naming several
/// (``IdsQuery``, ``AllObjectsQuery``, ``PaginationOffsetLimitQuery``). Throw
/// ``StrataError/Code/notFound`` when there is no value and ``StrataError/Code/queryNotSupported`` for a
/// query the source does not understand.
///
/// A source that knows more than the value — when it stored it, when it expires, a server's validators —
/// also implements ``getEntry(_:)`` and ``getAllEntries(_:)``; a source that can answer *not modified*
/// implements ``getIfModified(_:since:)``. Both have defaults built on ``get(_:)``.
public protocol GetDataSource<Value>: DataSourceCapabilities {
    /// The type of the values the source holds.
    associatedtype Value: Sendable

    /// Returns the value the query names.
    ///
    /// - Parameter query: Which value to read.
    /// - Returns: The value.
    /// - Throws: ``StrataError`` with code ``StrataError/Code/notFound`` when there is none.
    func get(_ query: any Query) async throws -> Value

    /// Returns every value the query names.
    ///
    /// - Parameter query: Which values to read.
    /// - Returns: The values, in the order the query defines (key order for ``AllObjectsQuery``).
    /// - Throws: ``StrataError``.
    func getAll(_ query: any Query) async throws -> [Value]

    /// Returns the value the query names with its metadata (stored date, expiry, validators).
    ///
    /// The default reads ``get(_:)`` and knows no metadata.
    ///
    /// - Parameter query: Which value to read.
    /// - Throws: As ``get(_:)``.
    func getEntry(_ query: any Query) async throws -> StoredEntry<Value>

    /// Returns every value the query names with its metadata.
    ///
    /// The default reads ``getAll(_:)`` and knows no metadata.
    ///
    /// - Parameter query: Which values to read.
    /// - Throws: As ``getAll(_:)``.
    func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>]

    /// Reads the value the query names unless it still matches `metadata`'s validators.
    ///
    /// A source that can revalidate (an HTTP source sending `If-None-Match` / `If-Modified-Since`) answers
    /// ``ConditionalRead/notModified(_:)`` when the caller's copy is current. The default cannot tell and
    /// reads the value: ``ConditionalRead/modified(_:)`` with ``getEntry(_:)``.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - metadata: The metadata of the copy the caller holds, with its validators.
    /// - Throws: As ``get(_:)``.
    func getIfModified(_ query: any Query, since metadata: EntryMetadata) async throws -> ConditionalRead<Value>
}

// MARK: - Defaults

extension GetDataSource {
    /// Reads ``get(_:)``; the entry has no metadata.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Value> {
        StoredEntry(value: try await get(query), metadata: EntryMetadata())
    }

    /// Reads ``getAll(_:)``; the entries have no metadata.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
        try await getAll(query).map { StoredEntry(value: $0, metadata: EntryMetadata()) }
    }

    /// Reads the value again with ``getEntry(_:)``: without validators, a copy is never known to be current.
    public func getIfModified(_ query: any Query, since metadata: EntryMetadata) async throws -> ConditionalRead<Value>
    {
        .modified(try await getEntry(query))
    }
}
