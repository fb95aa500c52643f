import struct Foundation.Date

/// A source that reads values: a memory store, a folder of files, an HTTP API.
///
/// Implement ``get(_:)`` for queries naming one value and ``getAll(_:)`` for queries naming several
/// (``IdsQuery``, ``AllObjectsQuery``, ``PaginationOffsetLimitQuery``). Throw
/// ``StrataError/Code/notFound`` when there is no value and ``StrataError/Code/queryNotSupported`` for a
/// query the source does not understand.
public protocol GetDataSource<Value>: Sendable {
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
}

/// A source that can say when each of its entries was stored, for ``StoredTimeValidator``.
///
/// Memory, file and JSON-file sources conform; a ``ValidatedDataSource`` uses ``getEntry(_:)`` instead of
/// ``GetDataSource/get(_:)`` when its source conforms, so validation costs no second lookup.
public protocol StoredEntryDataSource<Value>: GetDataSource {
    /// Returns the value the query names with the date it was stored.
    ///
    /// - Parameter query: Which value to read.
    func getEntry(_ query: any Query) async throws -> StoredEntry<Value>

    /// Returns every value the query names with the dates they were stored.
    ///
    /// - Parameter query: Which values to read.
    func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>]
}

/// A stored value with the date it was written.
public struct StoredEntry<Value: Sendable>: Sendable {
    /// The value.
    public var value: Value

    /// When the value was written to its source.
    public var storedAt: Date

    /// Creates an entry.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - storedAt: When it was stored.
    public init(value: Value, storedAt: Date) {
        self.value = value
        self.storedAt = storedAt
    }
}
