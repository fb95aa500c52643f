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
    /// - Throws: A cache error other than a miss as it is; main's error (or the stale values, when the plan's
    ///   fallback rule accepts it and every missing key has one); ``StrataError/Code/notFound`` with
    ///   ``StrataError/partialValues(as:)`` when main answers some keys only.
    func readMissingKeys(_ query: any MultiKeyedQuery, _ plan: OperationPlan.Read) async throws -> [StoredEntry<
        Main.Value
    >] {
        do {
            return try await cache.getAllEntries(query)
        } catch let error as StrataError where plan.asksMainOn.contains(error) {
            // Some keys are missing or stale: read them one by one below.
        }
        let keys = query.keys
        var entries = [StoredEntry<Main.Value>?](repeating: nil, count: keys.count)
        var stale = entries
        var missing: [Int] = []
        for position in keys.indices {
            do {
                entries[position] = try await cache.getAllEntries(narrowed(query, to: [position])).first
            } catch let error as StrataError where plan.asksMainOn.contains(error) {
                stale[position] = error.staleEntries(as: Main.Value.self)?.first
                missing.append(position)
            }
        }
        if missing.isEmpty { return entries.compactMap { $0 } }
        let fetched: [StoredEntry<Main.Value>?]
        do {
            fetched = try await readMain(narrowed(query, to: missing), keys: missing.map { keys[$0] })
        } catch {
            guard missing.allSatisfy({ stale[$0] != nil }), plan.staleValues.servesStale(after: error) else {
                throw error
            }
            return keys.indices.compactMap { entries[$0] ?? stale[$0] }
        }
        let found = zip(missing, fetched).compactMap { position, entry in entry.map { (position, $0) } }
        for (position, entry) in found { entries[position] = entry }
        if plan.writesBack, !found.isEmpty {
            let written = found.map(\.1)
            let storeQuery = try narrowed(query, to: found.map(\.0))
            let stored = try await syncCache(after: written, payload: written.map(\.value)) {
                written.keepingMetadata(of: try await cache.putAllEntries(written, in: storeQuery))
            }
            for ((position, _), entry) in zip(found, stored) { entries[position] = entry }
        }
        let missingKeys = keys.indices.filter { entries[$0] == nil }.map { keys[$0] }
        guard missingKeys.isEmpty else {
            throw StrataError.partial(entries.map { $0?.value }, missingKeys: missingKeys)
        }
        return entries.compactMap { $0 }
    }

    /// Main's entries for `keys` (one call, shared with concurrent identical reads), one per key, `nil` for a key
    /// main did not answer (see ``Swift/Array/matched(to:)``).
    private func readMain(_ query: any MultiKeyedQuery, keys: [String]) async throws -> [StoredEntry<Main.Value>?] {
        let read = { @Sendable [main] in try await main.getAllEntries(query) }
        let answer: [StoredEntry<Main.Value>]
        if let key = mainReadKey(isGetAll: true, writesBack: false, query) {
            answer = try await sharedMainRead(key, read)
        } else {
            answer = try await read()
        }
        return try answer.matched(to: keys)
    }

    /// The query for the keys at `positions`.
    private func narrowed(_ query: any MultiKeyedQuery, to positions: [Int]) throws -> any MultiKeyedQuery {
        guard let narrowed = query.selecting(positions: positions) else {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        return narrowed
    }
}
