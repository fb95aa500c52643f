extension CacheRepository
where Main: GetDataSource, Cache: GetDataSource & PutDataSource, Main.Value == Cache.Value {
    /// Reads the value the query names, with the source that answered and whether it is a stale cached value.
    ///
    /// ``get(_:operation:)`` returns the value alone. A read that serves a cached value that failed validation —
    /// inside a stale-while-revalidate window (``OperationPlan/BackgroundRefresh``), after main failed and the
    /// operation's fallback accepted the error (``CacheSyncOperation/fallback``), or with
    /// ``CacheOperation/ignoringValidation`` — answers here with `isStale` `true` and the cache's origin:
    ///
    /// ```swift
    /// let response = try await users.getResponse(IdQuery(42), operation: .cacheSync(staleWhileRevalidate: .seconds(60)))
    /// if let user = response.value { show(user, dimmed: response.isStale) }
    /// ```
    ///
    /// The read is the one ``get(_:operation:)`` makes, by the same plan, sharing main reads with it.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Returns: ``RepositoryResponse/value(_:origin:storedAt:isStale:isPending:)``: the value, the origin of the
    ///   source that answered (its ``DataSourceCapabilities/origin``, else ``DataOrigin/main`` or
    ///   ``DataOrigin/cache``), when it was stored, and whether it is stale.
    /// - Throws: As ``get(_:operation:)``.
    public func getResponse(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> RepositoryResponse<Main.Value> {
        let (entry, source, isStale) = try await getEntryMarkingStale(query, operation: operation)
        let origin = source == .main ? main.origin.specified(or: .main) : cache.origin.specified(or: .cache)
        return .value(entry.value, origin: origin, storedAt: entry.storedAt, isStale: isStale)
    }

    /// Reads the entry the query names, with the source that answered and whether it is a stale cached entry:
    /// what a composition made of repositories needs to report a stale answer.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: See the table on ``CacheRepository``.
    /// - Throws: As ``get(_:operation:)``.
    package func getEntryMarkingStale(
        _ query: any Query,
        operation: any RepositoryOperation
    ) async throws -> (entry: StoredEntry<Main.Value>, source: OperationPlan.Source, isStale: Bool) {
        let answer = try await runGet(query, operation: operation).answer
        return (answer.entry, answer.source, answer.isStale)
    }

    /// Carries out the read plan of a GET — after the cache missed with `knownMiss`, when the caller already asked
    /// it — and returns the answer with how the read ended, also told to the call's trail (`CallTrail.report`):
    /// the one place a single-value read runs its plan.
    ///
    /// - Parameters:
    ///   - query: Which value to read.
    ///   - operation: See the table on ``CacheRepository``.
    ///   - knownMiss: The cache's miss, when the caller asked the cache (the inlined hot path).
    /// - Throws: As ``get(_:operation:)``.
    func runGet(
        _ query: any Query,
        operation: any RepositoryOperation,
        knownMiss: StrataError? = nil
    ) async throws -> (answer: PlannedAnswer<StoredEntry<Main.Value>>, outcome: CallOutcome) {
        let plan = try readPlan(of: operation)
        let answer: PlannedAnswer<StoredEntry<Main.Value>>
        do {
            answer = try await runRead(plan, plannedGet(query), knownMiss: knownMiss)
        } catch {
            throw error.error
        }
        // A read after the caller's own cache miss was not answered by the first source it asked.
        let outcome = knownMiss == nil ? answer.outcome(first: plan.first) : answer.outcome(first: nil)
        CallTrail.report(outcome, from: answer.source)
        return (answer, outcome)
    }
}
