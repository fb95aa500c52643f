import Strata

/// One call a spy saw.
public struct SpyCall: Sendable, Equatable, CustomStringConvertible {
    /// The method that was called.
    public enum Method: String, Sendable {
        /// `get(_:)`
        case get
        /// `getAll(_:)`
        case getAll
        /// `put(_:in:)`
        case put
        /// `putAll(_:in:)`
        case putAll
        /// `delete(_:)`
        case delete
    }

    /// The name of the spy that saw the call.
    public let source: String

    /// The method.
    public let method: Method

    /// A description of the query.
    public let query: String

    /// Creates a call record.
    ///
    /// - Parameters:
    ///   - source: The spy's name.
    ///   - method: The method.
    ///   - query: A description of the query.
    public init(source: String, method: Method, query: String) {
        self.source = source
        self.method = method
        self.query = query
    }

    /// `source.method`, such as `main.get`.
    public var description: String { "\(source).\(method.rawValue)" }
}

/// A journal that several spies share, so a test can check the order of calls across sources.
public final class CallJournal: Sendable {
    private let calls = Locked<[SpyCall]>([])

    /// Creates an empty journal.
    public init() {}

    /// Every call recorded so far, in order.
    public var entries: [SpyCall] { calls.withLock { $0 } }

    /// The calls as `source.method` strings, such as `["cache.get", "main.get", "cache.put"]`.
    public var trace: [String] { entries.map(\.description) }

    /// Forgets every call.
    public func reset() { calls.withLock { $0.removeAll() } }

    /// Records a call.
    ///
    /// - Parameter call: The call.
    public func record(_ call: SpyCall) { calls.withLock { $0.append(call) } }
}

/// A data source that records every call in a ``CallJournal`` and forwards it to another source.
///
/// ```swift
/// let journal = CallJournal()
/// let main = SpyDataSource(name: "main", wrapping: MemoryDataSource<String>(), journal: journal)
/// ```
public struct SpyDataSource<Source: DataSource>: DataSource {
    /// The spy's name in the journal.
    public let name: String

    /// The source calls are forwarded to.
    public let source: Source

    /// The journal the spy writes to.
    public let journal: CallJournal

    /// Creates a spy.
    ///
    /// - Parameters:
    ///   - name: The name that appears in the journal.
    ///   - source: The source calls are forwarded to.
    ///   - journal: Where calls are recorded; a new one by default.
    public init(name: String, wrapping source: Source, journal: CallJournal = CallJournal()) {
        self.name = name
        self.source = source
        self.journal = journal
    }

    /// The calls this spy saw.
    public var calls: [SpyCall] { journal.entries.filter { $0.source == name } }

    private func record(_ method: SpyCall.Method, _ query: any Query) {
        journal.record(SpyCall(source: name, method: method, query: String(describing: query)))
    }

    /// Records and forwards.
    public func get(_ query: any Query) async throws -> Source.Value {
        record(.get, query)
        return try await source.get(query)
    }

    /// Records and forwards.
    public func getAll(_ query: any Query) async throws -> [Source.Value] {
        record(.getAll, query)
        return try await source.getAll(query)
    }

    /// Records and forwards.
    public func put(_ value: Source.Value, in query: any Query) async throws -> Source.Value {
        record(.put, query)
        return try await source.put(value, in: query)
    }

    /// Records and forwards.
    public func putAll(_ values: [Source.Value], in query: any Query) async throws -> [Source.Value] {
        record(.putAll, query)
        return try await source.putAll(values, in: query)
    }

    /// Records and forwards.
    public func delete(_ query: any Query) async throws {
        record(.delete, query)
        try await source.delete(query)
    }

    // MARK: Capabilities, forwarded

    /// The wrapped source's origin.
    public var origin: DataOrigin { source.origin }

    /// The wrapped source's changes.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> { source.changes(forKey: key) }

    /// Whether the wrapped source reads without blocking.
    public var readsWithoutBlocking: Bool { source.readsWithoutBlocking }

    /// Records a `get` and forwards.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Source.Value> {
        record(.get, query)
        return try await source.getEntry(query)
    }

    /// Records a `getAll` and forwards.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Source.Value>] {
        record(.getAll, query)
        return try await source.getAllEntries(query)
    }

    /// Records a `get` and forwards.
    public func getIfModified(
        _ query: any Query,
        since metadata: EntryMetadata
    ) async throws -> ConditionalRead<Source.Value> {
        record(.get, query)
        return try await source.getIfModified(query, since: metadata)
    }

    /// Records a `put` and forwards.
    public func putEntry(_ entry: StoredEntry<Source.Value>, in query: any Query) async throws -> Source.Value {
        record(.put, query)
        return try await source.putEntry(entry, in: query)
    }

    /// Records a `putAll` and forwards.
    public func putAllEntries(
        _ entries: [StoredEntry<Source.Value>],
        in query: any Query
    ) async throws -> [Source.Value] {
        record(.putAll, query)
        return try await source.putAllEntries(entries, in: query)
    }

    /// Forwards without recording (no value is read or written).
    public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        try await source.renewMetadata(metadata, in: query)
    }
}

extension SpyDataSource: WriteStampedCache where Source: WriteStampedCache {
    /// The wrapped source's write stamps.
    package var sharedWriteStamps: CacheWriteStamps? { source.sharedWriteStamps }
}
