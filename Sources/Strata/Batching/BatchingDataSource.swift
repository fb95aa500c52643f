/// A data source that sends single-key reads arriving together to its source as one read of several keys
/// (DataLoader's batching).
///
/// Every `get` and `getEntry` of a ``BatchableQuery`` (``IdQuery``, ``KeyQuery``) joins a batch of its query type;
/// the batch is sent as one `getAllEntries` with the query ``BatchableQuery/batch(_:)`` makes — an ``IdsQuery`` —
/// when it holds ``maxBatchSize`` keys, or when its first read has waited one scheduling tick (`Task.yield()`), or
/// ``window`` on the clock when one is set. Concurrent reads of one key share its slot. Each caller gets its own
/// answer: its value, ``StrataError/Code/notFound`` for a key the source did not answer (matched by position, or
/// by `Identifiable` id when the source answers fewer values than asked; see ``StrataError/partialValues(as:)``
/// for the same rule in ``CacheRepository``), or the source's error when the batch's read failed — every caller
/// of that batch and no other. A batch of several keys that fails for one entry (``StrataError/Code/notFound``,
/// which a store's list read throws for the first key it lacks; a value that no longer decodes, a key refused, a
/// value past the read limit) is read again in halves, a half that fails so halved in turn, so a missing key fails
/// only its own callers, the others get their entries with their metadata, and one bad key among a hundred costs
/// about a dozen list reads, not a hundred.
///
/// A batch belongs to none of its callers: it is sent from a task of its own, and each caller gets in its own task
/// whether its value was stale and the steps the batch's sources added to a ``CallTrail`` — of a batch answered key
/// by key, those of its own key's read — so that plugins observing each caller's repository call see where its value
/// came from.
///
/// Other reads (lists, conditional reads, queries that do not batch) go straight to the source. A caller whose
/// task is cancelled still waits for its batch.
///
/// ```swift
/// let users = UsersAPI(client).batched(maxBatchSize: 100)
/// // 1,000 concurrent gets reach the API as 10 requests for 100 ids each:
/// let user = try await users.get(IdQuery(42))
/// ```
public struct BatchingDataSource<Source: GetDataSource>: Sendable {
    /// The wrapped source, which answers the batches.
    public let source: Source

    /// The most keys one batch holds; a full batch is sent at once.
    public let maxBatchSize: Int

    /// How long the first read of a batch waits for others; `.zero` (the default) waits one scheduling tick.
    public let window: Duration

    private let loader: BatchLoader<Source.Value>

    /// Wraps a source so that single-key reads arriving together reach it as one read of several keys.
    ///
    /// - Parameters:
    ///   - source: The source; it answers a ``MultiKeyedQuery`` such as ``IdsQuery`` in `getAllEntries`.
    ///   - maxBatchSize: The most keys one batch holds.
    ///   - window: How long a batch waits for more reads; `.zero` waits one scheduling tick; a longer one than about
    ///     31 years waits that long.
    ///   - clock: The clock the window is measured on.
    public init(
        _ source: Source,
        maxBatchSize: Int = 100,
        window: Duration = .zero,
        clock: any WallClock = SystemClock()
    ) {
        self.source = source
        self.maxBatchSize = max(maxBatchSize, 1)
        self.window = window
        self.loader = BatchLoader(maxBatchSize: maxBatchSize, window: window, clock: clock) { [source] query in
            try await source.getAllEntries(query)
        }
    }

    /// The number of reads waiting in batches that are not sent yet.
    public var pendingCount: Int { loader.pendingCount }
}

extension BatchingDataSource: DataSourceCapabilities where Source: DataSourceCapabilities {
    /// The wrapped source's origin.
    public var origin: DataOrigin { source.origin }

    /// The wrapped source's changes.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> { source.changes(forKey: key) }
}

extension BatchingDataSource: GetDataSource {
    /// Reads the value in a batch (a ``BatchableQuery``), or from the source.
    public func get(_ query: any Query) async throws -> Source.Value {
        try await getEntry(query).value
    }

    /// Reads from the source.
    public func getAll(_ query: any Query) async throws -> [Source.Value] {
        try await source.getAll(query)
    }

    /// Reads the entry in a batch (a ``BatchableQuery``), or from the source.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Source.Value> {
        guard let query = query as? any BatchableQuery else { return try await source.getEntry(query) }
        return try await loader.entry(query)
    }

    /// Reads the entries from the source.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Source.Value>] {
        try await source.getAllEntries(query)
    }

    /// Reads conditionally from the source.
    public func getIfModified(
        _ query: any Query,
        since metadata: EntryMetadata
    ) async throws -> ConditionalRead<Source.Value> {
        try await source.getIfModified(query, since: metadata)
    }
}

// MARK: - Wrapping

extension GetDataSource {
    /// Wraps this source so that single-key reads arriving together reach it as one read of several keys
    /// (``BatchingDataSource``).
    ///
    /// - Parameters:
    ///   - maxBatchSize: The most keys one batch holds; a full batch is sent at once.
    ///   - window: How long a batch waits for more reads; `.zero` (the default) waits one scheduling tick.
    ///   - clock: The clock the window is measured on.
    public func batched(
        maxBatchSize: Int = 100,
        window: Duration = .zero,
        clock: any WallClock = SystemClock()
    ) -> BatchingDataSource<Self> {
        BatchingDataSource(self, maxBatchSize: maxBatchSize, window: window, clock: clock)
    }
}
