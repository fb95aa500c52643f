extension CacheRepository
where Main: GetDataSource, Cache: GetDataSource & PutDataSource, Main.Value == Cache.Value {
    /// The query of a list read that asks main for the keys the cache misses only, or `nil` for a read that goes
    /// by the plan's algorithm: one that does not start at the cache, never asks main, or names keys with a query
    /// that cannot be narrowed (``MultiKeyedQuery/selecting(positions:)``).
    func missingKeysQuery(_ query: any Query, _ plan: OperationPlan.Read) -> (any MultiKeyedQuery)? {
        guard plan.first == .cache, !plan.asksMainOn.isEmpty, let query = query as? any MultiKeyedQuery,
            query.selecting(positions: []) != nil
        else { return nil }
        return query
    }

    /// A list read that asks main for the keys the cache misses only: the cache answers the keys it has, main is
    /// asked once, with the query narrowed to the others, and its entries are written into the cache.
    ///
    /// A cache's list answer of another length than the keys (a cache of an app's own that leaves out the keys it
    /// lacks, in place of *not found*), or an empty answer for one key, is a miss of those keys, never a hit.
    ///
    /// A key whose value is stale is served as `get` serves one key (``OperationPlan/Read/servesStaleAtOnce(after:)``):
    /// as it is with ``OperationPlan/StaleValues/served``; inside the ``OperationPlan/Read/refreshesInBackground``
    /// window, while one background refresh reads main for every such key; otherwise main is asked for it.
    ///
    /// - Returns: The entries, in the order of the keys, and whether stale cached values are among them.
    /// - Throws: A cache error other than a miss as it is, and a miss the plan neither serves stale nor asks main
    ///   after; main's error (or the stale values, when the plan's fallback rule accepts it and every missing key
    ///   has one); ``StrataError/Code/notFound`` with ``StrataError/partialValues(as:)`` (one per key asked) when
    ///   main answers some keys only.
    func readMissingKeys(
        _ query: any MultiKeyedQuery,
        _ plan: OperationPlan.Read
    ) async throws -> (entries: [StoredEntry<Main.Value>], isStale: Bool) {
        let keys = query.keys
        let listMiss: StrataError
        do {
            let entries = try await cache.getAllEntries(query)
            // A cache that leaves out the keys it lacks (one of an app's own) has not answered the list: its entries
            // are in no known places, and the keys are read one by one.
            guard entries.count == keys.count else {
                throw StrataError(.notFound, "The cache answered \(entries.count) entries for \(keys.count) keys")
            }
            CallTrail.report(.hit, from: .cache)
            return (entries, false)
        } catch let error as StrataError
            where plan.asksMainOn.contains(error) || plan.servesStaleAtOnce(after: error) != nil
        {
            listMiss = error
        }
        let stamp = writeStamps.stamp(query)
        var entries = [StoredEntry<Main.Value>?](repeating: nil, count: keys.count)
        var misses = [StrataError?](repeating: nil, count: keys.count)
        if keys.count == 1, !writeStamps.wasEverWritten(stamp) {
            // The list's miss is its one key's: no need to ask again (unless a write of the key may have ended while
            // the cache was read, before the stamp: each key is read again after it).
            misses[0] = listMiss
        } else {
            for position in keys.indices {
                do {
                    // An empty answer for one key is its miss.
                    guard let entry = try await cache.getAllEntries(narrowed(query, to: [position])).first else {
                        throw StrataError.notFound(key: keys[position])
                    }
                    entries[position] = entry
                } catch let error as StrataError where error.isMiss {
                    misses[position] = error
                }
            }
        }
        let (stale, missing, servesStale) = try serveStale(query, plan, &entries, misses: misses, since: stamp)
        if missing.isEmpty {
            CallTrail.report(servesStale ? .staleServed : .hit, from: .cache)
            return (entries.compactMap { $0 }, servesStale)
        }
        let fetched: [StoredEntry<Main.Value>?]
        let fetchedStale: Bool
        do {
            (fetched, fetchedStale) = try await fetchAndStore(
                narrowed(query, to: missing),
                writesBack: plan.writesBack,
                since: stamp,
                staleCopies: missing.map { stale[$0] != nil }
            )
        } catch {
            let servable = missing.allSatisfy { stale[$0].map { !$0.metadata.forbidsServingStale } ?? false }
            guard servable, plan.staleValues.servesStale(after: error) else {
                throw error
            }
            CallTrail.report(.staleServed, from: .cache)
            return (keys.indices.compactMap { entries[$0] ?? stale[$0] }, true)
        }
        for (position, entry) in zip(missing, fetched) { entries[position] = entry }
        let missingKeys = keys.indices.filter { entries[$0] == nil }.map { keys[$0] }
        guard missingKeys.isEmpty else {
            throw StrataError.partial(entries.map { $0?.value }, missingKeys: missingKeys)
        }
        let isStale = fetchedStale || servesStale
        // Main answered the keys the cache missed: the last read that returned, as a trail's steps would say.
        CallTrail.report(isStale ? .staleServed : .miss, from: .main)
        return (entries.compactMap { $0 }, isStale)
    }

    /// Puts into `entries` the stale values of the keys the cache missed that the plan serves before main answers,
    /// and starts one background refresh of those inside the window, which writes back unless a write of the list
    /// went through the repository since `stamp` (taken before the cache was read key by key); the other keys are
    /// main's to answer.
    ///
    /// - Returns: The stale entry of each position main is asked for (for the plan's fallback), those positions,
    ///   and whether a stale value was served.
    /// - Throws: The miss of a key the plan neither serves stale nor asks main for.
    private func serveStale(
        _ query: any MultiKeyedQuery,
        _ plan: OperationPlan.Read,
        _ entries: inout [StoredEntry<Main.Value>?],
        misses: [StrataError?],
        since stamp: CacheWriteStamps.Stamp
    ) throws -> (stale: [StoredEntry<Main.Value>?], missing: [Int], servesStale: Bool) {
        var stale = [StoredEntry<Main.Value>?](repeating: nil, count: misses.count)
        var missing: [Int] = []
        var refreshed: [Int] = []
        var servesStale = false
        for (position, miss) in misses.enumerated() {
            guard let miss else { continue }
            let staleEntry = miss.staleEntries(as: Main.Value.self)?.first
            if let staleEntry, !staleEntry.metadata.forbidsServingStale,
                let serving = plan.servesStaleAtOnce(after: miss)
            {
                entries[position] = staleEntry
                servesStale = true
                if serving == .whileRefreshing { refreshed.append(position) }
            } else if plan.asksMainOn.contains(miss) {
                stale[position] = staleEntry
                missing.append(position)
            } else {
                throw miss
            }
        }
        if !refreshed.isEmpty {
            let refreshQuery = try narrowed(query, to: refreshed)
            let staleEntries = refreshed.compactMap { entries[$0] }
            refreshInBackground(
                plan,
                plannedGetAll(refreshQuery),
                stale: staleEntries,
                since: stamp
            )
        }
        return (stale, missing, servesStale)
    }

    /// Main's entries for the keys of `query`, one per key (`nil` for a key main did not answer, see
    /// ``Swift/Array/matched(to:)``), written into the cache with `writesBack` unless a write of the keys went
    /// through the repository since `stamp`: one main call and one cache write, shared with concurrent identical
    /// reads. In the same write-back, the cache's stale copies (`staleCopies`, one per key) of the keys main did not
    /// answer go (``dropCopy(of:)``), as `get` drops one main answers *not found* for: a copy of a key main no longer
    /// has is never served later. A key the cache held no copy of drops nothing (its list answer stays). Stale cached
    /// values a repository as main served (``StaleAnswerReport``) are returned as stale, and neither stored nor told
    /// as main's answer.
    ///
    /// The shared run is matched by the write stamps of `query`'s own keys, taken now: two reads of different lists
    /// that narrow to the same keys have stamps over different keys, whose sums say nothing of each other.
    /// `stamp`, over the whole list, is the stricter test of the write back.
    private func fetchAndStore(
        _ query: any MultiKeyedQuery,
        writesBack: Bool,
        since stamp: CacheWriteStamps.Stamp,
        staleCopies: [Bool]
    ) async throws -> (entries: [StoredEntry<Main.Value>?], isStale: Bool) {
        let key = mainReadKey(
            isGetAll: true,
            writesBack: writesBack,
            query,
            since: writeStamps.stamp(query),
            narrowed: true
        )
        // A shared run tells no repository that main answered: each read that shares it tells its own
        // (`sharedMainRead`).
        let tellsMainAnswers = key == nil
        let work = { @Sendable [self] () async throws -> (entries: [StoredEntry<Main.Value>?], isStale: Bool) in
            let ((answer, isPartial), isStale) = try await StaleAnswerReport.reading { [main] in
                try await Self.entries(of: query, from: main)
            }
            guard !isStale else { return (answer, true) }
            var fetched = answer
            if tellsMainAnswers { mainAnswered(.getAll, query) }
            // Values a partial error carries come without their metadata (an expiry, a rule not to store them): they
            // are returned, not stored (the repository as main has stored them in its own tiers).
            let storable = isPartial ? [] : fetched.indices.filter { fetched[$0]?.metadata.isStorable == true }
            // A key main did not answer is gone from main, and an entry that must not be stored is returned as it
            // came: the cache's older copies of both go (as for `get`), in the write-back turn.
            let superseded = fetched.indices.filter { position in
                guard let entry = fetched[position] else { return staleCopies[position] }
                return !isPartial && !entry.metadata.isStorable
            }
            guard !storable.isEmpty || !superseded.isEmpty else { return (fetched, false) }
            let written = storable.compactMap { fetched[$0] }
            let storeQuery = storable.isEmpty ? query : try narrowed(query, to: storable)
            let stored = try await writingBack(writesBack, since: stamp, storeQuery) {
                if !superseded.isEmpty, let supersededQuery = try? narrowed(query, to: superseded) {
                    await dropCopy(of: supersededQuery)
                }
                guard !storable.isEmpty else { return [StoredEntry<Main.Value>]() }
                return try await syncCache(after: written, payload: written.map { $0.value }, superseding: storeQuery) {
                    written.keepingMetadata(of: try await cache.putAllEntries(written, in: storeQuery))
                }
            }
            for (position, entry) in zip(storable, stored ?? written) { fetched[position] = entry }
            return (fetched, false)
        }
        guard let key else { return try await work() }
        return try await sharedMainRead(
            key,
            telling: .getAll,
            query,
            answeredByMain: { !$0.isStale },
            isStorable: { $0.entries.allSatisfy { $0?.metadata.isStorable != false } },
            work
        )
    }

    /// Main's entries for the keys of `query`, one per key, `nil` for a key main did not answer: a shorter list
    /// matched to the keys (``Swift/Array/matched(to:)``), or the values of main's ``StrataError/partial(_:missingKeys:)``
    /// error (a repository as main throws one for the keys it found), which carries no metadata (`isPartial`).
    private static func entries(
        of query: any MultiKeyedQuery,
        from main: Main
    ) async throws -> (entries: [StoredEntry<Main.Value>?], isPartial: Bool) {
        do {
            return (try await main.getAllEntries(query).matched(to: query.keys), false)
        } catch let error as StrataError {
            guard let entries = error.partialEntries(as: Main.Value.self, keyCount: query.keys.count) else {
                throw error
            }
            return (entries, true)
        }
    }

    /// The query for the keys at `positions`.
    private func narrowed(_ query: any MultiKeyedQuery, to positions: [Int]) throws -> any MultiKeyedQuery {
        guard let narrowed = query.selecting(positions: positions) else {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        return narrowed
    }
}
