extension CacheRepository: GetRepository
where Main: GetDataSource, Cache: GetDataSource & PutDataSource, Main.Value == Cache.Value {
    /// Reads the value the query names from the sources the operation's plan selects.
    ///
    /// The value alone: a stale cached value served at once (stale-while-revalidate) or after main failed (a
    /// fallback rule) is not marked. ``getResponse(_:operation:)`` makes the same read and says whether it was
    /// stale and which source answered.
    ///
    /// A cache that reads without blocking (``DataSourceCapabilities/readsWithoutBlocking``: a memory source) may be
    /// read on the caller's executor, with no hop (where the call is specialised for its type); any other cache, and
    /// everything after a miss, is read off it, on the global concurrent executor.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Throws: ``StrataError``: the source's error, ``StrataError/Code/cacheSyncFailed`` when the main
    ///   value could not be cached, ``StrataError/Code/operationNotSupported`` for an operation that does not read.
    @inlinable @inline(__always)
    nonisolated(nonsending) public func get(_ query: any Query, operation: any RepositoryOperation) async throws
        -> Main.Value
    {
        // The read is `getReportingOutcome`'s, whose hot path is inlined here; the outcome is dropped.
        try await getReportingOutcome(query, operation: operation).value
    }

    /// Reads as ``get(_:operation:)`` does, and says how the read ended: a hit when the first source the plan asks
    /// answered, a miss when the other one did, a stale value served when the cache's value was served stale.
    ///
    /// What counting plugins on the repository report, with no plugin on the sources and no ``CallTrail``.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Throws: As ``get(_:operation:)``.
    @inlinable @inline(__always)
    nonisolated(nonsending) public func getReportingOutcome(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> (value: Main.Value, outcome: CallOutcome) {
        // The hot path — a CacheSync or Default read that the cache answers, a hit — stays inlinable and allocation
        // free: no plan is built, no existential is called. Both plans start at the cache and return its value, so
        // this is their first step; a miss continues in the plan's algorithm from the second. Always inlined: left
        // out of line, as the optimizer left it inside a plugged repository, it is an async frame of its own
        // (a task allocation and its release, a quarter of a memory-cache hit).
        if Self.readsCacheFirst(operation) {
            guard cache.readsWithoutBlocking else {
                return try await readCacheFirstReportingOutcomeConcurrently(query, operation)
            }
            return try await readCacheFirstReportingOutcome(query, operation)
        }
        return try await readReportingOutcome(query, operation: operation, knownMiss: nil)
    }

    /// A CacheSync or Default GET: the cache, then the rest of the plan after a miss; with the read's outcome.
    @inlinable @inline(__always)
    nonisolated(nonsending) func readCacheFirstReportingOutcome(
        _ query: any Query,
        _ operation: any RepositoryOperation
    ) async throws -> (value: Main.Value, outcome: CallOutcome) {
        do {
            let value = try await cache.get(query)
            CallTrail.report(.hit, from: .cache)
            return (value, .hit)
        } catch let error as StrataError where error.isMiss {
            return try await readReportingOutcome(query, operation: operation, knownMiss: error)
        }
    }

    /// ``readCacheFirstReportingOutcome(_:_:)`` on the global concurrent executor, for a cache whose reads may block.
    @usableFromInline
    @concurrent func readCacheFirstReportingOutcomeConcurrently(
        _ query: any Query,
        _ operation: any RepositoryOperation
    ) async throws -> (value: Main.Value, outcome: CallOutcome) {
        try await readCacheFirstReportingOutcome(query, operation)
    }

    /// A GET with any operation by its plan, with its outcome; after the cache missed with `knownMiss`, if it did.
    @usableFromInline
    func readReportingOutcome(
        _ query: any Query,
        operation: any RepositoryOperation,
        knownMiss: StrataError?
    ) async throws -> (value: Main.Value, outcome: CallOutcome) {
        let (answer, outcome) = try await runGet(query, operation: operation, knownMiss: knownMiss)
        return (answer.entry.value, outcome)
    }

    /// Whether the operation is CacheSync or Default, the two built-in plans whose GET asks the cache first.
    ///
    /// Opening the existential reads the operation's type from its container: comparing it is a pointer
    /// comparison, where `type(of:)` would be a runtime call and `is` a runtime cast. The operations are
    /// structs, so the container's type is the dynamic type.
    @inlinable
    static func readsCacheFirst<Operation: RepositoryOperation>(_ operation: Operation) -> Bool {
        Operation.self == CacheSyncOperation.self || Operation.self == DefaultOperation.self
    }

    /// Reads every value the query names from the sources the operation's plan selects.
    ///
    /// A read of several keys (an ``IdsQuery``, or a ``MultiKeyedQuery`` that can be narrowed with
    /// ``MultiKeyedQuery/selecting(positions:)``) by an operation that starts at the cache and asks main on a miss
    /// (CacheSync, Default) fetches only what is missing: the cache answers the keys it holds valid, main is asked
    /// once for the others (the query narrowed to them), the values come back in the order asked, and main's are
    /// written into the cache. A stale value is served as ``get(_:operation:)`` serves one key: at once with
    /// ``OperationPlan/StaleValues/served``, and inside a stale-while-revalidate window while one background refresh
    /// reads main for every such key. Main answers a list in the order it was asked; when it answers fewer values than
    /// asked, `Identifiable` values are matched to the keys by their id, the ones found are cached, and the read
    /// throws ``StrataError/Code/notFound`` with ``StrataError/partialValues(as:)`` — one element per key asked,
    /// `nil` for each key main did not find.
    ///
    /// - Parameters:
    ///   - query: Which values to read.
    ///   - operation: See the table on ``CacheRepository``.
    public func getAll(_ query: any Query, operation: any RepositoryOperation) async throws -> [Main.Value] {
        try await getAllEntries(query, operation: operation).map { $0.value }
    }

    /// Reads the value the query names with its metadata, by the operation's plan.
    ///
    /// The entry has the metadata of the source that answered: a value copied from main into the cache keeps
    /// main's stored date and expiry.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Throws: As ``get(_:operation:)``.
    public func getEntry(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> StoredEntry<Main.Value> {
        try await getEntryMarkingStale(query, operation: operation).entry
    }

    /// Reads every value the query names with its metadata, by the operation's plan.
    ///
    /// - Parameters:
    ///   - query: Which values to read.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Throws: As ``getAll(_:operation:)``.
    public func getAllEntries(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> [StoredEntry<Main.Value>] {
        try await getAllEntriesMarkingStale(query, operation: operation).entries
    }

    /// Reads every value the query names with its metadata, and whether they include stale cached values: what a
    /// composition made of repositories needs to report a stale answer.
    ///
    /// - Parameters:
    ///   - query: Which values to read.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Throws: As ``getAll(_:operation:)``.
    package func getAllEntriesMarkingStale(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> (entries: [StoredEntry<Main.Value>], isStale: Bool) {
        let plan = try readPlan(of: operation)
        if let query = missingKeysQuery(query, plan) { return try await readMissingKeys(query, plan) }
        do {
            let asksMainOnAMiss = plan.first == .cache && !plan.asksMainOn.isEmpty
            let answer = try await runRead(plan, plannedGetAll(query, asksMainOnAMiss: asksMainOnAMiss))
            CallTrail.report(answer.outcome(first: plan.first), from: answer.source)
            return (answer.entry, answer.isStale)
        } catch {
            throw error.error
        }
    }
}
