import Strata

extension OfflineRepository {
    /// Reads a value and says whether a write of its key waits to reach main.
    ///
    /// While a write of the key waits in the outbox, the newest one answers (a queued delete reads as
    /// ``Strata/StrataError/Code/notFound``) and main is not asked, so a read never brings back the value the
    /// write replaces; while only its first attempt is on its way to main, the cache answers (it has the attempt's
    /// value). Otherwise the read goes through the repository with `operation` — which keeps nothing main answers in
    /// the cache while a record the app dropped (``Outbox/drop(_:)``) is still on its way, as main may apply it after
    /// it answered.
    ///
    /// - Parameters:
    ///   - query: Which value.
    ///   - operation: How to read when nothing waits; ``Strata/DefaultOperation`` by default.
    /// - Returns: The value and whether it is pending.
    public func get(
        _ query: any Query,
        operation: any RepositoryOperation = DefaultOperation()
    ) async throws -> OfflineValue<Value> {
        guard let key = (query as? any KeyedQuery)?.key, await outbox.isPending(key: key) else {
            return OfflineValue(value: try await repository.get(query, operation: operation), isPending: false)
        }
        guard let latest = await outbox.latest(forKey: key) else {
            // A first attempt is on its way, whose value the cache has; or only a dropped record is, whose drop took
            // the cache's copy (no write of the key is left to wait for), and main answers, its value not kept.
            let firstAttempt = await outbox.hasWaitingWrite(key: key)
            return OfflineValue(
                value: try await repository.get(
                    query,
                    operation: firstAttempt ? .cacheIgnoringValidation : UnkeptReadOperation(operation)
                ),
                isPending: true
            )
        }
        guard latest.operation == .put, let data = latest.value else {
            throw Self.deletedWhileWaiting(key)
        }
        return OfflineValue(value: try decode(data), isPending: true)
    }

    /// Reads every value the query names, the newest waiting write of a key answering for it, as in
    /// ``get(_:operation:)``.
    ///
    /// For a query that names keys (an ``Strata/IdsQuery``, a ``Strata/MultiKeyedQuery``), each key with a write
    /// waiting in the outbox is answered by it — a waiting delete as a key not found — and a key whose first attempt
    /// is on its way to main by the cache; main is asked only for the others, so a list never brings back a value a
    /// waiting write replaces (a key whose dropped record is on its way is read as the others, main's answer not
    /// kept in the cache, as in ``get(_:operation:)``); a missing key fails the read with ``Strata/StrataError/Code/notFound`` and
    /// ``Strata/StrataError/partialValues(as:)``, one per key asked. Any other query goes through the repository as
    /// it is.
    ///
    /// - Parameters:
    ///   - query: Which values.
    ///   - operation: How to read the keys without a waiting write; ``Strata/DefaultOperation`` by default.
    public func getAll(
        _ query: any Query,
        operation: any RepositoryOperation = DefaultOperation()
    ) async throws -> [Value] {
        guard let keyed = query as? any MultiKeyedQuery else {
            return try await repository.getAll(query, operation: operation)
        }
        let keys = keyed.keys
        let (waiting, firstAttempts, dropped) = await outbox.waitingWrites(forKeys: keys)
        guard !waiting.isEmpty || !firstAttempts.isEmpty || !dropped.isEmpty else {
            return try await repository.getAll(query, operation: operation)
        }
        var values = [Value?](repeating: nil, count: keys.count)
        let unsent = keys.indices.filter { firstAttempts.contains(keys[$0]) }
        let unkept = keys.indices.filter { dropped.contains(keys[$0]) }
        let others = keys.indices.filter {
            waiting[keys[$0]] == nil && !firstAttempts.contains(keys[$0]) && !dropped.contains(keys[$0])
        }
        // As `get` reads them: a key whose first attempt is on its way from the cache, which has its value; a key whose
        // dropped record is on its way without keeping main's answer.
        let reads: [([Int], any RepositoryOperation)] = [
            (unsent, .cacheIgnoringValidation), (unkept, UnkeptReadOperation(operation)), (others, operation),
        ]
        for (positions, operation) in reads where !positions.isEmpty {
            let read = try await read(keyed, at: positions, operation: operation)
            for (position, value) in zip(positions, read) { values[position] = value }
        }
        for (position, key) in keys.enumerated() {
            guard let write = waiting[key], write.operation == .put, let data = write.value else { continue }
            values[position] = try decode(data)
        }
        let missingKeys = keys.indices.filter { values[$0] == nil }.map { keys[$0] }
        guard missingKeys.isEmpty else { throw StrataError.partial(values, missingKeys: missingKeys) }
        return values.compactMap { $0 }
    }

    /// Reads the keys of `query` at `positions` with `operation`, one value or `nil` (not found) per position.
    private func read(
        _ query: any MultiKeyedQuery,
        at positions: [Int],
        operation: any RepositoryOperation
    ) async throws -> [Value?] {
        guard let narrowed = query.selecting(positions: positions) else {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        let read: [Value?]
        do {
            read = try await repository.getAll(narrowed, operation: operation)
        } catch let error as StrataError {
            // Keys not found among these: they are missing from the whole list too.
            guard let found = error.partialValues(as: Value.self), found.count == positions.count else { throw error }
            read = found
        }
        guard read.count == positions.count else {
            throw StrataError(
                .unexpectedResponse,
                "A list read of \(positions.count) keys answered \(read.count) values"
            )
        }
        return read
    }
}
