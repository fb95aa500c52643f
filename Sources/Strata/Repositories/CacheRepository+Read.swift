extension CacheRepository
where Main: GetDataSource, Cache: GetDataSource & PutDataSource, Main.Value == Cache.Value {
    /// Carries out a read plan: the one algorithm behind `get`, `getAll`, `getEntry`, `getAllEntries` and `stream`
    /// (the steps are described on ``OperationPlan/Read``).
    ///
    /// - Parameters:
    ///   - plan: The operation's read plan.
    ///   - read: How the method reads and stores entries.
    ///   - knownMiss: The cache's miss, when the caller already asked the cache (the inlined hot path).
    ///   - coalesces: Whether a main read after a cache miss is shared with concurrent identical reads.
    ///   - beforeMain: Called with the stale answer before main is asked about it (a stream emits it).
    /// - Returns: The entry and where it came from.
    /// - Throws: The failed call's error with its source.
    func runRead<Entry, Value>(
        _ plan: OperationPlan.Read,
        _ read: PlannedRead<Entry, Value>,
        knownMiss: StrataError? = nil,
        coalesces: Bool = true,
        beforeMain: (@Sendable (PlannedAnswer<Entry>) -> Void)? = nil
    ) async throws(PlannedReadFailure) -> PlannedAnswer<Entry> {
        // Read before this method asks the cache (for a caller that asked it already, just after its miss): a shared
        // main read that ends after this point may have stored the value this read misses
        // (``readMain(_:_:stale:coalesces:since:finishedRuns:)``).
        let finishedRuns = coalesces ? mainReads.finishedRunCount : nil
        if plan.first == .main {
            do {
                return try await readMain(
                    plan,
                    read,
                    stale: nil,
                    coalesces: false,
                    since: writeStamps.stamp(read.query)
                )
            } catch {
                throw PlannedReadFailure(error: error, source: .main)
            }
        }
        var miss: StrataError
        if let knownMiss {
            miss = knownMiss
        } else {
            switch try await Self.askCache(read) {
            case .success(let entry): return PlannedAnswer(entry: entry, source: .cache, isStale: false)
            case .failure(let error): miss = error
            }
        }
        guard plan.asksMainOn.contains(miss) || plan.servesStaleAtOnce(after: miss) != nil else {
            throw PlannedReadFailure(error: miss, source: .cache)
        }
        // The stamp is taken before anything can suspend after the cache missed, so a write made since is seen; one
        // that ended while the cache was read is seen by asking the cache again.
        let stamp = writeStamps.stamp(read.query)
        if writeStamps.wasEverWritten(stamp) {
            switch try await Self.askCache(read) {
            case .success(let entry): return PlannedAnswer(entry: entry, source: .cache, isStale: false)
            case .failure(let error): miss = error
            }
        }
        let stale = miss.code == .notValid ? read.stale(miss) : nil
        // A stale entry whose source forbids serving it stale is only revalidated.
        let staleAnswer = stale.flatMap {
            read.servesStale($0) ? PlannedAnswer(entry: $0, source: .cache, isStale: true) : nil
        }
        if let staleAnswer, let serving = plan.servesStaleAtOnce(after: miss) {
            if serving == .whileRefreshing {
                refreshInBackground(plan, read, stale: stale, since: stamp)
            }
            return staleAnswer
        }
        guard plan.asksMainOn.contains(miss) else { throw PlannedReadFailure(error: miss, source: .cache) }
        if let staleAnswer { beforeMain?(staleAnswer) }
        do {
            return try await readMain(
                plan,
                read,
                stale: stale,
                coalesces: coalesces,
                since: stamp,
                finishedRuns: finishedRuns
            )
        } catch {
            if let staleAnswer, plan.staleValues.servesStale(after: error) { return staleAnswer }
            throw PlannedReadFailure(error: error, source: .main)
        }
    }

    /// The cache's entry for a read, or its miss (``StrataError/isMiss``); any other error of the cache thrown as
    /// the cache's.
    private static func askCache<Entry, Value>(
        _ read: PlannedRead<Entry, Value>
    ) async throws(PlannedReadFailure) -> Result<Entry, StrataError> {
        do {
            return .success(try await read.readCache())
        } catch let error as StrataError where error.isMiss {
            return .failure(error)
        } catch {
            throw PlannedReadFailure(error: error, source: .cache)
        }
    }

    /// The main half of a read: a conditional read for a stale entry with validators (renewing the cached entry
    /// on *not modified*), else main's entry; written back into the cache as the plan says. Main's answer is told
    /// to ``Configuration/onMainAnswer`` first. A main source that is a repository and answered with a stale cached
    /// value (``StaleAnswerReport``) gives a stale answer, neither stored nor told.
    ///
    /// The write-back rule: main's answer is written into the cache (or renews the cached entry) only when no
    /// write of the read's keys went through the repository since `stamp` (``CacheWriteStamps``); otherwise the
    /// cache keeps the newer value and the read returns main's answer without storing it.
    ///
    /// A shared read asks the cache again before main when a shared read ended since `finishedRuns` (the
    /// coalescer's count when this read began): one that ended between this read's cache miss and its own start
    /// may have stored the value, and concurrent misses of one key then make one main read, not two.
    func readMain<Entry, Value>(
        _ plan: OperationPlan.Read,
        _ read: PlannedRead<Entry, Value>,
        stale: Entry?,
        coalesces: Bool,
        since stamp: CacheWriteStamps.Stamp,
        finishedRuns: Int? = nil
    ) async throws -> PlannedAnswer<Entry> {
        let writesBack = plan.writesBack
        let revalidates = plan.revalidates
        let method: PluginCall.Method = read.isGetAll ? .getAll : .get
        let key =
            coalesces ? mainReadKey(isGetAll: read.isGetAll, writesBack: writesBack, read.query, since: stamp) : nil
        // A shared run tells no repository that main answered: each read that shares it tells its own
        // (`sharedMainRead`).
        let tellsMainAnswers = key == nil
        // A single entry main answers *not found* for, where the cache may hold a copy (it was not asked, or it held
        // a stale one): the copy goes, in the write-back turn — unless the plan's fallback serves that stale copy after
        // the error (`runRead`): it stays, to be served again. A miss of both sources touches nothing.
        let dropsCopyOnNotFound = !read.isGetAll && (plan.first == .main || stale != nil)
        let servesStaleCopy = { @Sendable (error: StrataError) in
            stale.map { read.servesStale($0) } == true && plan.staleValues.servesStale(after: error)
        }
        let readAndStore = { @Sendable [self] () async throws -> PlannedAnswer<Entry> in
            do {
                return try await readAndStoreAnswer()
            } catch let error as StrataError
                where error.code == .notFound && dropsCopyOnNotFound && !servesStaleCopy(error)
            {
                try await dropCopy(after: error, writesBack: writesBack, since: stamp, read.query)
            }
        }
        @Sendable func readAndStoreAnswer() async throws -> PlannedAnswer<Entry> {
            if revalidates, let stale {
                let (outcome, isStale) = try await StaleAnswerReport.reading { try await read.revalidate(stale) }
                switch outcome {
                case nil:
                    break
                case .notModified(let renewed) where isStale, .modified(let renewed) where isStale:
                    return PlannedAnswer(entry: renewed, source: .main, isStale: true)
                case .notModified(let renewed):
                    if tellsMainAnswers { mainAnswered(method, read.query) }
                    let stored = try await writingBack(writesBack, since: stamp, read.query) {
                        try await syncCache(after: renewed, payload: read.value(renewed), superseding: read.query) {
                            try await read.renew(renewed, stale)
                        }
                    }
                    return PlannedAnswer(entry: stored ?? renewed, source: .main, isStale: false)
                case .modified(let entry):
                    if tellsMainAnswers { mainAnswered(method, read.query) }
                    return try await store(entry, writesBack: writesBack, since: stamp, read)
                }
            }
            let (entry, isStale) = try await StaleAnswerReport.reading { try await read.readMain() }
            // A repository as main served a stale cached value: not main's answer, and not stored as current.
            guard !isStale else { return PlannedAnswer(entry: entry, source: .main, isStale: true) }
            if tellsMainAnswers { mainAnswered(method, read.query) }
            return try await store(entry, writesBack: writesBack, since: stamp, read)
        }
        guard let key else { return try await readAndStore() }
        return try await sharedMainRead(
            key,
            telling: method,
            read.query,
            answeredByMain: { $0.source == .main && !$0.isStale },
            isStorable: { read.isStorable($0.entry) }
        ) {
            [self] in
            if let finishedRuns, mainReads.finishedRunCount != finishedRuns, let cached = try? await read.readCache() {
                return PlannedAnswer(entry: cached, source: .cache, isStale: false)
            }
            return try await readAndStore()
        }
    }

    /// Drops the cache's copy of the entry `query` names (and its list answer, ``removeCopy(of:)``) after main
    /// answered *not found* for it, when the plan writes back and no write of the key went through the repository
    /// since `stamp` (``writingBack(_:since:_:_:)``); then throws main's `error`.
    ///
    /// A read that starts at main (`.mainSync`: "skips the cache and refreshes it"), a revalidation and a background
    /// refresh of a stale copy end here; the copy is not served again unless the fallback serves it after `error`.
    private func dropCopy(
        after error: StrataError,
        writesBack: Bool,
        since stamp: CacheWriteStamps.Stamp,
        _ query: any Query
    ) async throws -> Never {
        _ = try? await writingBack(writesBack, since: stamp, query) { await removeCopy(of: query) }
        throw error
    }

    /// Main's entry, written into the cache when the plan writes back and no write of its keys went through the
    /// repository since the read began at `stamp`.
    private func store<Entry, Value>(
        _ entry: Entry,
        writesBack: Bool,
        since stamp: CacheWriteStamps.Stamp,
        _ read: PlannedRead<Entry, Value>
    ) async throws -> PlannedAnswer<Entry> {
        let stored = try await writingBack(writesBack, since: stamp, read.query) {
            try await syncCache(after: entry, payload: read.value(entry), superseding: read.query) {
                try await read.store(entry)
            }
        }
        return PlannedAnswer(entry: stored ?? entry, source: .main, isStale: false)
    }

    /// Writes main's answer back into the cache with `write` when the plan writes back (`writesBack`) and no write
    /// of the read's keys went through the repository since `stamp`, nor is in progress; what `write` returned, or
    /// `nil` when it was skipped (the caller returns main's answer as it came, and the cache keeps what the write
    /// left).
    ///
    /// The one place every write-back goes through: the check and the cache write are one turn of the keys
    /// (``CacheWriteStamps/writingBack(since:_:removingCopy:)``), so a write that begins after the check reaches the
    /// cache after this one, and nothing a write stored is ever removed. A held write made directly in the cache
    /// during `write` (a removal) has the copy of `query` removed, unless `query` is a listing (removing it would
    /// empty the cache).
    ///
    /// - Parameters:
    ///   - writesBack: Whether the plan writes main's answers back.
    ///   - stamp: The stamp taken when the read began.
    ///   - query: The query whose entries `write` stores.
    ///   - write: The cache write.
    func writingBack<Result>(
        _ writesBack: Bool,
        since stamp: CacheWriteStamps.Stamp,
        _ query: any Query,
        _ write: () async throws -> Result
    ) async throws -> Result? {
        guard writesBack else { return nil }
        return try await writeStamps.writingBack(since: stamp, write) {
            _ = await removeCopy(of: query)
        }
    }

    /// How `get` reads: entries with their metadata, a conditional read for a stale entry with validators; an entry
    /// (or a renewal) that must not be stored (``EntryMetadata/isStorable``) is returned without being written or
    /// renewed, and the cache's older entry for the query is deleted (when the cache can delete; a failure is ignored),
    /// so it is never served in its place later (for HTTP, RFC 9111, section 4.3.3: a full response supersedes every
    /// stored one; section 4.3.4: a 304's fields replace the stored ones).
    func plannedGet(_ query: any Query) -> PlannedRead<StoredEntry<Main.Value>, Main.Value> {
        PlannedRead(
            isGetAll: false,
            query: query,
            readCache: { [cache] in try await cache.getEntry(query) },
            readMain: { [main] in try await main.getEntry(query) },
            revalidate: { [main] stale in
                guard stale.metadata.hasValidators else { return nil }
                switch try await main.getIfModified(query, since: stale.metadata) {
                case .modified(let entry): return .modified(entry)
                case .notModified(let renewed): return .notModified(StoredEntry(value: stale.value, metadata: renewed))
                }
            },
            store: { [self] entry in
                guard entry.metadata.isStorable else {
                    await dropCopy(of: query)
                    return entry
                }
                return StoredEntry(value: try await cache.putEntry(entry, in: query), metadata: entry.metadata)
            },
            renew: { [self] entry, stale in
                guard entry.metadata.isStorable else {
                    // A 304 that says the value must not be stored: its fields replace the stored ones, so the stored
                    // copy goes as for a full answer.
                    await dropCopy(of: query)
                    return entry
                }
                // The 304 confirmed the stale version: a newer one another read wrote back meanwhile is left as it is.
                return try await renewCachedEntry(entry, confirming: stale, in: query)
            },
            stale: { $0.staleEntry(as: Main.Value.self) },
            servesStale: { !$0.metadata.forbidsServingStale },
            isStorable: { $0.metadata.isStorable },
            value: { $0.value }
        )
    }

    /// The cache's entries for a list read: a listing (``StoredListAnswerQuery/listing(of:)``) only from a list
    /// answer the cache stored — a miss otherwise, and when the cache cannot tell (it refuses the query) — any other
    /// query as it is. A list answer served marks that the cache may hold one (``forgetListAnswer()``).
    func cachedEntries(of query: any Query) async throws -> [StoredEntry<Main.Value>] {
        guard let listing = StoredListAnswerQuery.listing(of: query) else {
            return try await cache.getAllEntries(query)
        }
        do {
            let entries = try await cache.getAllEntries(StoredListAnswerQuery(listing))
            mayHoldListAnswer.withLock { $0 = true }
            return entries
        } catch let error as StrataError where error.code == .queryNotSupported {
            throw StrataError(
                .notFound,
                "The cache cannot tell whether it holds the whole answer to \(type(of: listing))",
                underlying: error
            )
        }
    }

    /// How `getAll` reads: entries with their metadata; there is no conditional list read.
    ///
    /// Main's answer with entries that must not be stored (``EntryMetadata/isStorable``) is returned as it came. A list
    /// of keys stores its other entries, each under its key, and the cache's older copies of those entries go (as for
    /// `get`). A listing that names no keys (every entry, a page) stores nothing and removes no entry: no list answer
    /// that leaves entries out, and no removal of entries it never named (`.cache` puts included); the list answer the
    /// cache stored earlier goes, so that the older listing is not served in place of main's.
    ///
    /// - Parameters:
    ///   - query: What to read.
    ///   - asksMainOnAMiss: Whether the plan asks main after the cache misses (CacheSync, Default): a listing is then
    ///     answered by the cache only from a list answer it stored (``cachedEntries(of:)``). A read of the cache
    ///     alone lists what it holds.
    func plannedGetAll(
        _ query: any Query,
        asksMainOnAMiss: Bool = false
    ) -> PlannedRead<[StoredEntry<Main.Value>], [Main.Value]> {
        // A tier's own list answer, asked by the repository above it (`StoredListAnswerQuery`), is stored as the
        // listing it answers.
        let query = (query as? StoredListAnswerQuery)?.listing ?? query
        let storeAll = { @Sendable [self] (entries: [StoredEntry<Main.Value>]) async throws in
            guard let keyed = query as? any MultiKeyedQuery else {
                // An answer with an entry that must not be stored is returned as it came, and stores nothing. The
                // cache's older copy goes (as for `get`), unless the query is a listing that names no keys (every
                // entry, a page): its copy is the whole cache, `.cache` puts included, which no answer of main removes;
                // only the list answer the cache stored goes, which would serve the older listing.
                guard entries.allSatisfy({ $0.metadata.isStorable }) else {
                    let listing = StoredListAnswerQuery.listing(of: query)
                    await dropCopy(of: listing.map { StoredListAnswerQuery($0) } ?? query)
                    return entries
                }
                // A page, or a listing of some keys, is no list answer a cache can keep (it would answer "every entry"
                // with them): returned, not stored. `AllObjectsQuery` is stored whole, as the cache's list answer.
                if StoredListAnswerQuery.listing(of: query) != nil, !(query is AllObjectsQuery) { return entries }
                markListAnswer(writing: query)
                return entries.keepingMetadata(of: try await cache.putAllEntries(entries, in: query))
            }
            // A list of keys is stored key by key, main's answer matched to the keys (``Swift/Array/matched(to:)``):
            // a server that answers sorted, or leaves keys out, never has a value stored under another's key.
            guard let matched = try? entries.matched(to: keyed.keys) else {
                // Which keys main left out is unknown: nothing is stored, and no older copy outlives main's answer.
                await dropCopy(of: query)
                return entries
            }
            let storable = matched.indices.filter { matched[$0]?.metadata.isStorable == true }
            let written = storable.compactMap { matched[$0] }
            guard storable.count < keyed.keys.count else {
                return written.keepingMetadata(of: try await cache.putAllEntries(written, in: query))
            }
            // The keys main did not answer are gone from main, and an entry that must not be stored is returned as it
            // came (as for `get`): their older copies go too.
            let superseded = matched.indices.filter { matched[$0]?.metadata.isStorable != true }
            if let supersededQuery = keyed.selecting(positions: superseded) {
                await dropCopy(of: supersededQuery)
            }
            if let storableQuery = keyed.selecting(positions: storable), !written.isEmpty {
                _ = try await cache.putAllEntries(written, in: storableQuery)
            }
            return entries
        }
        return PlannedRead(
            isGetAll: true,
            query: query,
            readCache: { [self] in
                guard asksMainOnAMiss else { return try await cache.getAllEntries(query) }
                return try await cachedEntries(of: query)
            },
            readMain: { [main] in try await main.getAllEntries(query) },
            revalidate: { _ in nil },
            store: storeAll,
            renew: { entries, _ in try await storeAll(entries) },
            stale: { $0.staleEntries(as: Main.Value.self) },
            servesStale: { $0.allSatisfy { !$0.metadata.forbidsServingStale } },
            isStorable: { $0.allSatisfy { $0.metadata.isStorable } },
            value: { $0.map { $0.value } }
        )
    }
}
