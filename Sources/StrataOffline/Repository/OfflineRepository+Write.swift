import Foundation
import Strata

extension OfflineRepository {
    /// Writes a value to the cache, then to main; when main fails with a retryable error, queues the write and
    /// succeeds with ``WriteStatus/pending(_:)``.
    ///
    /// When a write of the key already waits in the outbox, this one joins the queue behind it without asking
    /// main, so main receives the key's writes in order.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - query: A ``Strata/KeyedQuery``: the outbox replays writes by key.
    /// - Returns: Main's returned value and ``WriteStatus/saved``, or the cache's value and the queued record.
    /// - Throws: The cache's error (nothing reached main or the outbox); main's error when it is not retryable;
    ///   ``Strata/StrataError/Code/queryNotSupported`` for a query without a key; the outbox's error when the write
    ///   could not be queued: ``Strata/StrataError/Code/tooLarge`` when the outbox is full (``Outbox/limits``);
    ///   ``Strata/StrataError/Code/alreadyInUse`` when the outbox serves another repository, or after ``close()``
    ///   (nothing was written); ``Strata/StrataError/Code/cancelled`` when the caller's task is cancelled while an
    ///   earlier write of the key holds this one back (nothing was written). An outbox's error after a first attempt
    ///   main may have taken (its error says so, ``Strata/StrataError/mayHaveTakenEffect``, or the caller was
    ///   cancelled with the write on its way) says so too, main's error as its ``Strata/StrataError/underlying``: main
    ///   may have the write, though it will not be sent again.
    ///   After main's error or the outbox's, the cache shows the key's latest write that waits, or, when none does,
    ///   drops its copy: it never keeps a value main refused or will not get, and the key's next read asks main.
    @discardableResult
    public func put(_ value: Value, in query: any Query) async throws -> OfflineWrite<Value> {
        let (stored, status) = try await write(
            key: Self.key(of: query),
            .put,
            toCache: { [repository] in try await repository.put(value, in: query, operation: .cache) },
            toMain: { try await repository.main.put($0, in: query) },
            record: { try encode($0) }
        )
        return OfflineWrite(value: stored, status: status)
    }

    /// Deletes the key from the cache, then from main; when main fails with a retryable error, queues the delete
    /// and succeeds with ``WriteStatus/pending(_:)``.
    ///
    /// A queued delete replaces the queued puts of its key before it (one being sent, only when that send fails):
    /// main would lose their values anyway.
    ///
    /// - Parameter query: A ``Strata/KeyedQuery``.
    /// - Returns: ``WriteStatus/saved`` or the queued record.
    /// - Throws: As ``put(_:in:)``.
    @discardableResult
    public func delete(_ query: any Query) async throws -> WriteStatus {
        try await write(
            key: Self.key(of: query),
            .delete,
            toCache: { [repository] in try await repository.delete(query, operation: .cache) },
            toMain: { _ in try await repository.main.delete(query) },
            record: { _ in nil }
        ).status
    }

    /// The one algorithm behind ``put(_:in:)`` and ``delete(_:)``: the cache, then — unless a write of the key
    /// waits — main with a new idempotency key; a retryable failure of main queues the write.
    ///
    /// - Parameters:
    ///   - key: The entry's key.
    ///   - operation: Put or delete, for the record.
    ///   - toCache: Writes the cache; returns what main is given.
    ///   - toMain: Writes main; returns what the call returns.
    ///   - record: The value as a record keeps it; encoded only when the write is queued.
    /// - Returns: Main's result and ``WriteStatus/saved``, or the cache's and the queued record.
    private func write<Result: Sendable>(
        key: String,
        _ operation: PendingWrite.Operation,
        toCache: @escaping @Sendable () async throws -> Result,
        toMain: (Result) async throws -> Result,
        record encoding: (Result) throws -> Data?
    ) async throws -> (value: Result, status: WriteStatus) {
        try beginWriting()
        defer { endWriting() }
        // Main is written directly, not through the repository: the whole write counts as one of the repository's,
        // so a read that met main before the write reached it does not write that older answer back after it.
        return try await asOwnWork {
            try await repository.recordingWrite(KeyQuery(key)) {
                // Numbered and written into the cache in the key's turn: two writes of a key that ran at once wrote the
                // cache in either order, and the cache kept the older value once main had the newer one. A write whose
                // task is cancelled while an earlier write of the key holds the turn stops waiting, having written
                // nothing.
                guard await cacheTurns.takeUnlessCancelled(key) else {
                    throw StrataError(
                        .cancelled,
                        "The write was cancelled while it waited for an earlier write of its key; nothing was written",
                        underlying: CancellationError()
                    )
                }
                let sequence: UInt64
                let direct: Bool
                let local: Result
                do {
                    (sequence, direct) = try await outbox.beginWrite(key: key)
                } catch {
                    await cacheTurns.giveBack(key)
                    throw error
                }
                do {
                    local = try await toCache()
                } catch {
                    // The attempt ends before the key's turn is given back: a write of the key in the next turn goes
                    // straight to main, rather than queue behind an attempt no replay could then wait for.
                    await outbox.endWrite(sequence, key: key, direct: direct)
                    await cacheTurns.giveBack(key)
                    throw error
                }
                if direct { firstAttempts.withLock { $0[key] = { _ = try await toCache() } } }
                var record = PendingWrite(
                    sequence: sequence,
                    key: key,
                    operation: operation,
                    value: nil,
                    idempotencyKey: UUID().uuidString,
                    createdAt: configuration.clock.now()
                )
                guard direct else {
                    // The first attempt this write queues behind, if one is on its way: taken now, as it may end before
                    // the outbox refuses this write.
                    let firstAttempt = firstAttempts.withLock { $0[key] }
                    // Queued in the key's turn too: a replay that settles an older write of the key checks the outbox for a
                    // later one in its turn, and must find this one there.
                    do {
                        record.value = try encoding(local)
                        let queued = try await enqueue(record, after: nil)
                        await cacheTurns.giveBack(key)
                        return (local, .pending(queued))
                    } catch {
                        // Not queued (the outbox is full, say): the cache shows the key's latest queued write again, never a
                        // value main will not get.
                        await outbox.endWrite(sequence, key: key, direct: false)
                        await restoreCache(key: key, firstAttempt: firstAttempt)
                        await cacheTurns.giveBack(key)
                        throw error
                    }
                }
                await cacheTurns.giveBack(key)
                do {
                    let stored = try await IdempotencyKey.$current.withValue(record.idempotencyKey) {
                        try await toMain(local)
                    }
                    await endFirstAttempt(sequence, key: key)
                    if await outbox.count > 0 { triggerReplay(.mainAnswered) }
                    return (stored, .saved)
                } catch {
                    // A retryable failure queues the write after a backoff. So does, due at once, a cancellation of
                    // the caller's task (a view that closed) with the write on its way: main may have it or not, and
                    // the cache shows it, so it is queued as a replay cancelled so stays queued. Any other error is
                    // thrown, and nothing is queued.
                    let isCancelled = Task.isCancelled
                    guard isCancelled || configuration.isRetryable(error) else {
                        await endRefusedFirstAttempt(sequence, key: key)
                        throw error
                    }
                    // The queue waits for this key until the record is written (or could not be).
                    do {
                        record.value = try encoding(local)
                        let queued = try await enqueue(record, after: isCancelled ? nil : error)
                        await endFirstAttempt(sequence, key: key)
                        // The replay queueing started may have found the key still held by this attempt, and skipped
                        // it: one more, now that the key is free (it joins the first if that has not begun).
                        if isCancelled { triggerReplay(.due) }
                        return (local, .pending(queued))
                    } catch let refusal {
                        // Not queued (the outbox is full, say): main will not get the write, whose copy goes too —
                        // unless it already has it, which the refusal then says.
                        await endRefusedFirstAttempt(sequence, key: key)
                        throw Self.refusal(refusal, afterFirstAttemptFailedWith: error, cancelled: isCancelled)
                    }
                }
            }
        }
    }

    /// Ends a first attempt main refused for good, or that failed and could not be queued, in the key's turn, and
    /// drops the cache's copy of its value unless a later write of the key waits (``dropRefusedCopy(ofKey:settling:)``); a write
    /// of the key queued behind it meanwhile, which no replay could send while the attempt was on its way, is replayed
    /// now (as after an attempt main took).
    private func endRefusedFirstAttempt(_ sequence: UInt64, key: String) async {
        await cacheTurns.take(key)
        await endFirstAttempt(sequence, key: key)
        await dropRefusedCopy(ofKey: key)
        await cacheTurns.giveBack(key)
        if await outbox.isPending(key: key) { triggerReplay(.due) }
    }

    /// The error thrown when the outbox refused (`refusal`) a write whose first attempt failed with `mainError`: when
    /// main may have taken the write all the same (`mainError` says so, ``Strata/StrataError/mayHaveTakenEffect``, or
    /// the caller was cancelled with the write on its way), the refusal says so too, with `mainError` as its cause
    /// when it has none of its own; otherwise the refusal as it is. An app that took the refusal for "main does not
    /// have it" would save again, under a new idempotency key, and main could apply the write twice.
    static func refusal(
        _ refusal: any Error,
        afterFirstAttemptFailedWith mainError: any Error,
        cancelled: Bool
    ) -> any Error {
        guard cancelled || (mainError as? StrataError)?.mayHaveTakenEffect == true, var error = refusal as? StrataError
        else { return refusal }
        error.mayHaveTakenEffect = true
        if error.underlying == nil { error.underlying = mainError }
        error.message += "; main may have it all the same: the write failed on its way there"
        return error
    }

    private func endFirstAttempt(_ sequence: UInt64, key: String) async {
        firstAttempts.withLock { _ = $0.removeValue(forKey: key) }
        await outbox.endWrite(sequence, key: key, direct: true)
    }

    /// Counts a write under way, so ``close()`` waits for it; throws ``Strata/StrataError/Code/alreadyInUse`` when the
    /// repository does not hold its outbox or was closed.
    private func beginWriting() throws {
        try outbox.checkService(outboxClaim)
        let isClosed = schedule.withLock { schedule -> Bool in
            guard !schedule.isClosed else { return true }
            schedule.writesUnderWay += 1
            return false
        }
        if isClosed { throw outbox.notServed }
    }

    /// Ends a write ``beginWriting()`` counted, resuming a ``close()`` that waits for the last one.
    private func endWriting() {
        ReplaySchedule.end(in: schedule) { $0.writesUnderWay -= 1 }
    }

    /// ``restoreCache(key:firstAttempt:)`` with the key's first attempt on its way now, if any.
    func restoreCache(key: String) async {
        await restoreCache(key: key, firstAttempt: firstAttempts.withLock { $0[key] })
    }

    /// Puts the cache back to the key's latest queued write (its value, or its absence), or, when none is queued, to the
    /// first attempt the write was queued behind (`firstAttempt`, taken when the write was numbered: that attempt may
    /// have ended since), or, when neither waits, drops its copy (``dropRefusedCopy(ofKey:settling:)``), after a write of
    /// the key that reached the cache but could not be queued behind them, or whose queued record the app dropped;
    /// failures are ignored (a write's own error is thrown).
    ///
    /// It runs to its end whatever the calling task's cancellation (an app's drop in a view's task that ends): what it
    /// puts right is gone for good, and a cache that honours cancellation kept the value, shown saved.
    func restoreCache(key: String, firstAttempt: (@Sendable () async throws -> Void)?) async {
        // A task of its own, which the caller's cancellation does not reach.
        await Task { await putCacheBack(key: key, firstAttempt: firstAttempt) }.value
    }

    /// ``restoreCache(key:firstAttempt:)``'s work, in the task it runs in.
    private func putCacheBack(key: String, firstAttempt: (@Sendable () async throws -> Void)?) async {
        guard let latest = await outbox.latest(forKey: key) else {
            guard let firstAttempt else {
                // Nothing of the key waits: the cache held main's value, or none, which the read after asks main for.
                await dropRefusedCopy(ofKey: key)
                return
            }
            _ = try? await firstAttempt()
            return
        }
        let query = configuration.query(key)
        switch latest.operation {
        case .put:
            guard let data = latest.value, let value = try? decode(data) else { return }
            _ = try? await repository.put(value, in: query, operation: .cache)
        case .delete:
            try? await repository.delete(query, operation: .cache)
        }
    }

    /// Records a write in the outbox (after `error`, its first attempt's failure, or unsent) and schedules its
    /// replay.
    private func enqueue(_ draft: PendingWrite, after error: (any Error)?) async throws -> PendingWrite {
        var record = draft
        if let error {
            record.attempts = 1
            record.noteFailure(error, unreachable: configuration.isUnreachable(error))
            // From the failure, as every later one: the first attempt may have taken longer than the pause (a 503
            // whose `Retry-After` came after a slow answer).
            record.notBefore = configuration.clock.now().addingTimeInterval(
                pause(after: error, attempt: 1).timeInterval
            )
        }
        let replacing: Outbox.Replacing =
            configuration.coalescesWrites ? .everything : record.operation == .delete ? .puts : .nothing
        record = try await outbox.append(record, replacing: replacing)
        if error == nil { triggerReplay(.due) } else { scheduleTimer() }
        return record
    }

    /// The key of a keyed query, or *query not supported*.
    static func key(of query: any Query) throws -> String {
        guard let query = query as? any KeyedQuery else {
            throw StrataError(
                .queryNotSupported,
                "An offline repository writes by key; \(type(of: query)) names no single key"
            )
        }
        return query.key
    }

    /// The value as the outbox keeps it.
    func encode(_ value: Value) throws -> Data {
        do {
            return try configuration.makeEncoder().encode(value)
        } catch {
            throw StrataError.serialization(error, "Encoding a \(Value.self) for the outbox failed")
        }
    }

    /// A queued value, decoded.
    func decode(_ data: Data) throws -> Value {
        do {
            return try configuration.makeDecoder().decode(Value.self, from: data)
        } catch {
            throw StrataError.serialization(error, "A queued \(Value.self) no longer decodes")
        }
    }
}
