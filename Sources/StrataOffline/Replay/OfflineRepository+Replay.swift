import Foundation
import Strata

extension OfflineRepository {
    /// Replays every queued write now, ignoring backoff, and returns what it did; waits for a replay in progress
    /// first.
    ///
    /// Writes go in the order they were made; a key whose write fails again waits for its backoff, and the
    /// others go on. A failure of the transport (main unreachable) ends the replay. Cancelling the calling task
    /// cancels the write on its way and ends the replay; that write stays queued as it was. Cancelled while it
    /// waits for a replay in progress, it returns at once, having sent nothing (a report of what remains); so it does
    /// when called from the repository's own write or replay (by main, a plugin of it or a conflict resolver), which
    /// it would wait for.
    @discardableResult
    public func sync() async -> SyncReport {
        if isInOwnWork {
            return await withRemaining(SyncReport(delivered: 0, resolvedByRemote: 0, remaining: 0, setAside: 0))
        }
        if let report = await replays.runUnlessCancelled({ await self.replayPass(.all) }) { return report }
        return await withRemaining(SyncReport(delivered: 0, resolvedByRemote: 0, remaining: 0, setAside: 0))
    }

    /// `report` with what the outbox holds now: the writes still to send, and those set aside.
    private func withRemaining(_ report: SyncReport) async -> SyncReport {
        var report = report
        let remaining = await outbox.pendingWrites
        report.remaining = remaining.count { !$0.isSetAside }
        report.setAside = remaining.count { $0.isSetAside }
        return report
    }

    /// Starts a replay unless one already waits to start (which then sends what `urgency` asks, too).
    func triggerReplay(_ urgency: ReplayUrgency) {
        let start = schedule.withLock { schedule -> Bool in
            guard !schedule.isClosed else { return false }
            schedule.urgency = max(schedule.urgency, urgency)
            if schedule.isTriggered { return false }
            schedule.isTriggered = true
            schedule.unfinished += 1
            return true
        }
        // A replay is no part of the call whose main answer started it (a stream's read, say): its cache writes
        // are announced to every stream.
        if start { leaveRunning(ending: { $0.unfinished -= 1 }) { await $0.replay() } }
    }

    /// Runs `work` on the repository in a task of its own, left running (`CallContext.leftRunning`), counted in the
    /// schedule (`end` moves the count back down): the task holds the repository only while `work` runs, and counts it
    /// done after letting go, so a ``close()`` waiting for it returns with nothing of the repository left in it.
    private func leaveRunning(
        ending end: @escaping @Sendable (inout ReplaySchedule) -> Void,
        _ work: @escaping @Sendable (OfflineRepository) async -> Void
    ) {
        let schedule = schedule
        Task { [weak self] in
            await CallContext.leftRunning { if let self { await work(self) } }
            ReplaySchedule.end(in: schedule, end)
        }
    }

    /// Runs the replay ``triggerReplay(_:)`` asked for, with the urgency asked since.
    private func replay() async {
        _ = await replays.run {
            let urgency = self.schedule.withLock { schedule in
                schedule.isTriggered = false
                defer { schedule.urgency = .due }
                return schedule.urgency
            }
            return await self.replayPass(urgency)
        }
    }

    /// Returns when no replay is running or waiting to start: one a main answer, a new write or the timer
    /// started. Queued writes are not sent by it; a test awaits it instead of sleeping. Called from the repository's
    /// own write or replay, it returns at once.
    ///
    /// It returns when the calling task is cancelled too, whatever is still running: a replay may wait on a conflict
    /// resolver that awaits the user, and a view that stops waiting must not wait for ever.
    public func waitForReplays() async {
        guard !isInOwnWork else { return }
        while schedule.withLock({ $0.unfinished }) > 0 {
            guard !Task.isCancelled, await replays.runUnlessCancelled({}) != nil else { return }
            await Task.yield()
        }
        _ = await replays.runUnlessCancelled {}
    }

    /// Sets the timer to the earliest end of a backoff, in place of a pending one that wakes later.
    func scheduleTimer() {
        guard configuration.replaysOnTimer else { return }
        let start = schedule.withLock { schedule -> Bool in
            guard !schedule.isClosed else { return false }
            schedule.settingTimers += 1
            return true
        }
        // The timer is no part of the call that set it, nor is the replay it starts (see `triggerReplay`).
        if start { leaveRunning(ending: { $0.settingTimers -= 1 }) { await $0.setTimer() } }
    }

    /// Sets the timer ``scheduleTimer()`` asks for.
    private func setTimer() async {
        guard let due = await outbox.earliestRetry else { return }
        let clock = configuration.clock
        // A record's date is read from a file: the wait never exceeds the backoff's longest pause. The timer
        // wakes at that date, however late its task starts.
        let latest = clock.now().addingTimeInterval(configuration.replayBackoff.maximum.timeInterval)
        let wake = min(due, latest)
        schedule.withLock { schedule in
            guard !schedule.isClosed, schedule.replacesTimer(wakingAt: wake) else { return }
            schedule.timer?.cancel()
            schedule.timerWake = wake
            schedule.timer = Task { [weak self] in
                do {
                    try await clock.sleep(until: wake)
                } catch {
                    return
                }
                self?.schedule.withLock { if $0.timerWake == wake { $0.timerWake = nil } }
                self?.triggerReplay(.due)
            }
        }
    }

    /// One replay: sends each queued write `urgency` sends now, in order, and settles what main answers.
    func replayPass(_ urgency: ReplayUrgency) async -> SyncReport {
        await asOwnWork { await replayPassAsOwnWork(urgency) }
    }

    /// ``replayPass(_:)``, in the repository's own work.
    private func replayPassAsOwnWork(_ urgency: ReplayUrgency) async -> SyncReport {
        var report = SyncReport(delivered: 0, resolvedByRemote: 0, remaining: 0, setAside: 0)
        var blocked = Set<String>()
        let now = configuration.clock.now()
        passLoop: for queued in await outbox.pendingWrites where !queued.isSetAside {
            if Task.isCancelled || schedule.withLock({ $0.isClosed }) { break }
            if blocked.contains(queued.key) { continue }
            guard let record = await outbox.record(queued.sequence), !record.isSetAside else { continue }
            // A key waits for its first attempt on its way and for its earlier records, checked as the send is
            // marked: a write that failed its first attempt meanwhile is queued before this record.
            guard urgency.sends(record, now: now, longestPause: configuration.replayBackoff.maximum),
                await outbox.beginSending(record.sequence)
            else {
                blocked.insert(record.key)
                continue
            }
            let outcome = await deliverUnlessClosed(record)
            switch outcome {
            case .failed, .interrupted: await outbox.endSending(failed: true)
            default: await outbox.endSending(failed: false)
            }
            switch outcome {
            case .delivered:
                report.delivered += 1
            case .resolvedByRemote:
                report.resolvedByRemote += 1
            case .failed(let error):
                blocked.insert(record.key)
                if configuration.isUnreachable(error) { break passLoop }
            case .interrupted:
                break passLoop
            case .setAside, .dropped:
                break
            }
        }
        report = await withRemaining(report)
        if report.remaining > 0 { scheduleTimer() }
        return report
    }

    /// How one replayed write ended.
    enum Delivery {
        /// Main took it; the record is gone.
        case delivered
        /// A resolver let main's value win; the record is gone.
        case resolvedByRemote
        /// Main failed with a retryable error; the record waits for its backoff.
        case failed(any Error)
        /// The record was set aside.
        case setAside
        /// The record was dropped (``Outbox/drop(_:)``) while it was on its way: it is not sent again.
        case dropped
        /// The replay was cancelled (``close()``, or the task of a ``sync()``) before main answered, or before its
        /// answer was settled (a resolver deciding, a cache step stopped: ``isInterrupted(done:)``): the record stays
        /// as it was, and a later replay sends it again, with the same idempotency key.
        case interrupted
    }

    /// Sends one record to main, and settles conflicts with the resolver (a bounded number of times).
    func deliver(_ original: PendingWrite) async -> Delivery {
        var record = original
        let query = configuration.query(record.key)
        while true {
            let local: Value?
            do {
                local = try record.value.map(decode)
            } catch {
                return await setAside(record, because: error)
            }
            record.attempts = Self.incremented(record.attempts)
            do {
                try await IdempotencyKey.$current.withValue(record.idempotencyKey) {
                    try await ExpectedVersion.$current.withValue(record.expectedVersion) {
                        try await send(local, query)
                    }
                }
                // A record whose file cannot be removed stays queued: it holds back the later writes of its key
                // (``Outbox/beginSending(_:)``), and a later replay sends it again, with the same idempotency key —
                // after a pause, not at once and again while the disk refuses.
                do {
                    try await outbox.remove(record.sequence)
                } catch {
                    await waitForBackoff(&record, after: error)
                }
                return .delivered
            } catch  where Task.isCancelled {
                // Whatever the cancelled send threw (a cancellation is no retryable error), the write is not set
                // aside: it waits, as it was, for the next replay.
                return .interrupted
            } catch let error as StrataError where error.code == .conflict {
                let settledConflicts = record.conflicts
                record.conflicts = Self.incremented(record.conflicts)
                record.lastError = PendingWrite.describe(error)
                guard record.conflicts <= configuration.maxConflicts else {
                    return await setAside(record, because: error)
                }
                let resolution: ConflictResolution<Value>
                switch await resolve(record, local: local, query: query, error: error) {
                case .setAside:
                    return .setAside
                case .interrupted:
                    return .interrupted
                case .waits(let readFailure):
                    if Task.isCancelled { return .interrupted }
                    // Not a conflict settled: it does not count towards setting the write aside. The ones settled
                    // earlier in this delivery (saved with the record) still do.
                    record.conflicts = settledConflicts
                    await waitForBackoff(&record, after: readFailure)
                    return .failed(readFailure)
                case .resolved(let resolved, let remote):
                    resolution = resolved
                    // The version a resend is conditional on: main's, when it was read; else the one it had, so a
                    // resend never goes without its condition and overwrites a change nobody saw.
                    if let remote { record.expectedVersion = remote.version }
                }
                switch resolution {
                case .takeRemote:
                    do {
                        try await outbox.remove(record.sequence)
                    } catch {
                        // Main's value won: the write must never be sent again, which would undo that. Its file stays
                        // until it can be dropped, set aside (for this process, if the mark cannot be saved either).
                        _ = await setAside(record, because: error, evenIfUnsaved: true)
                    }
                    return .resolvedByRemote
                case .keepLocal:
                    record.idempotencyKey = UUID().uuidString
                case .merge(let merged):
                    do {
                        record.value = try encode(merged)
                        // A merge of a queued delete is a put of the merged value: kept a delete, a read said the
                        // value was deleted while the merged value waited to reach main.
                        record.operation = .put
                        let followed = try await cacheFollows(record) {
                            _ = try await repository.put(merged, in: query, operation: .cache)
                            return true
                        }
                        // The merge never reached the outbox: the write waits, as it was, for the next replay.
                        guard followed else { return .interrupted }
                    } catch {
                        // As it was queued: the merged value never reached the cache, and may not fit in the outbox.
                        return await setAside(original, because: error)
                    }
                    record.idempotencyKey = UUID().uuidString
                }
                do {
                    // A merged value must fit (the only one that can grow); what it replaced leaves its room.
                    guard try await outbox.update(record, checkingRoom: true) else { return .dropped }
                } catch let error as StrataError where error.code == .tooLarge {
                    // A merge the outbox has no room for is never sent: the write is set aside as it was queued.
                    return await setAside(original, because: error)
                } catch {
                    return .failed(error)
                }
            } catch  where configuration.isRetryable(error) {
                await waitForBackoff(&record, after: error)
                return .failed(error)
            } catch {
                return await setAside(record, because: error)
            }
        }
    }

    /// Sends a replayed write to main: the put of `local`, or a delete.
    private func send(_ local: Value?, _ query: any Query) async throws {
        if let local {
            _ = try await repository.main.put(local, in: query)
        } else {
            try await repository.main.delete(query)
        }
    }

    /// Notes a retryable failure on the record and saves its next attempt's time, after the backoff's pause.
    ///
    /// The pause holds in memory even when the record's file cannot be written (``Outbox/update(_:)``): a replay
    /// must not send it again at once, in a loop, while the disk refuses.
    private func waitForBackoff(_ record: inout PendingWrite, after error: any Error) async {
        record.noteFailure(error, unreachable: configuration.isUnreachable(error))
        record.notBefore = configuration.clock.now().addingTimeInterval(
            pause(after: error, attempt: record.attempts).timeInterval
        )
        _ = try? await outbox.update(record)
    }

    /// What became of a conflict.
    private enum ConflictOutcome {
        /// The resolver decided; `remote` is main's entry as read (`nil` when it could not be read).
        case resolved(ConflictResolution<Value>, remote: (value: Value?, version: String?)?)
        /// Main's entry could not be read for a retryable reason: the record waits for its backoff, unresolved.
        case waits(any Error)
        /// The record was set aside.
        case setAside
        /// The replay was cancelled while the resolver decided, or while the cache took main's value
        /// (``close()``, or the task of a ``sync()``): the record stays as it was.
        case interrupted
    }

    /// Asks the resolver about a conflict and applies a win of main to the cache.
    ///
    /// When main's entry cannot be read for a retryable reason (a network failure), the conflict waits for the
    /// backoff rather than being settled blind. When it cannot be read otherwise, the resolver decides without it
    /// (``OutboxConflict/remoteError``); a win of main then removes the cache's copy, which main refused. A resolver
    /// that fails because the replay was cancelled, or a win of main whose cache step the cancellation stopped, leaves
    /// the record as it was (``ConflictOutcome/interrupted``).
    private func resolve(
        _ record: PendingWrite,
        local: Value?,
        query: any Query,
        error: StrataError
    ) async -> ConflictOutcome {
        var remote: Value?
        var remoteVersion: String?
        var remoteError: (any Error)?
        do {
            let entry = try await repository.main.getEntry(query)
            remote = entry.value
            remoteVersion = entry.metadata.eTag
        } catch let error as StrataError where error.code == .notFound {
            remote = nil
        } catch {
            if Task.isCancelled || configuration.isRetryable(error) { return .waits(error) }
            remoteError = error
        }
        let conflict = OutboxConflict(
            key: record.key,
            local: local,
            remote: remote,
            remoteVersion: remoteVersion,
            remoteError: remoteError,
            error: error,
            write: record
        )
        let resolution: ConflictResolution<Value>
        do {
            resolution = try await configuration.conflictResolver.resolve(conflict)
        } catch  where Task.isCancelled {
            // A resolver cancelled as it awaited (a prompt, a read) decided nothing: the write is not set aside.
            return .interrupted
        } catch {
            _ = await setAside(record, because: error)
            return .setAside
        }
        let read = remoteError == nil ? (value: remote, version: remoteVersion) : nil
        guard case .takeRemote = resolution else { return .resolved(resolution, remote: read) }
        // Main wins; the cache follows unless a later write of the key waits (it is newer still). A cache that
        // refuses is ignored; a cache write the replay's cancellation stopped leaves the write queued as it was, which
        // removed would leave its value in the cache, shown saved.
        let followed = try? await cacheFollows(record) {
            if remoteError != nil {
                // Main's value is unknown: the copy main refused goes, with the cache's list answer (main may hold
                // the key), but no value was deleted. Streams are not told "deleted"; they read again, and show what
                // main answers then.
                return await repository.dropCopy(mainMayHold: query)
            } else if let remote {
                _ = try await repository.put(remote, in: query, operation: .cache)
            } else {
                try await repository.delete(query, operation: .cache)
            }
            return true
        }
        if followed == false { return .interrupted }
        return .resolved(resolution, remote: read)
    }

    /// Runs `write` (a cache write that settles `record`; whether it did its work) unless a later write of its key
    /// waits, which is newer still: checked and written in the key's turn, so a write of the key that starts
    /// meanwhile writes the cache after it.
    ///
    /// - Returns: `false` when the replay's cancellation stopped the write (``isInterrupted(done:)``): the delivery
    ///   is interrupted, and the record stays as it was.
    /// - Throws: The write's error, when it failed otherwise.
    private func cacheFollows(_ record: PendingWrite, _ write: () async throws -> Bool) async throws -> Bool {
        await cacheTurns.take(record.key)
        var done = true
        do {
            if await outbox.latest(forKey: record.key)?.sequence == record.sequence { done = try await write() }
        } catch  where Self.isInterrupted(done: false) {
            done = false
        } catch {
            await cacheTurns.giveBack(record.key)
            throw error
        }
        await cacheTurns.giveBack(record.key)
        return !Self.isInterrupted(done: done)
    }

    /// Whether a cache step that settles a replayed record (main's value or a merge written, a refused copy dropped)
    /// was stopped by the replay's cancellation (``close()``, or the task of a ``sync()``): it failed, or did not do
    /// its work (`done`), with the task cancelled. The delivery is then ``Delivery/interrupted``: the record stays as
    /// it was, for the next replay to settle again, rather than be removed or set aside with the cache still showing
    /// its value as saved.
    private static func isInterrupted(done: Bool) -> Bool {
        !done && Task.isCancelled
    }

    /// `count + 1`, saturating: a count read from a file, or a caller's limit, never traps.
    static func incremented(_ count: Int) -> Int {
        count == .max ? .max : count + 1
    }

    /// Marks a record set aside with the reason, and keeps it for inspection.
    ///
    /// When the mark cannot be saved, the file keeps the record as it was, which the next launch replays: set aside in
    /// this process only, the record would let the later writes of its key reach main first, and be sent after them
    /// then. So it stays queued instead, first of its key, and waits for its backoff as after a failure — unless
    /// `evenIfUnsaved` (a write main's value won, which must never be sent again): then it is set aside in memory.
    ///
    /// A write set aside when no later write of its key waits takes the cache's copy with it, which main refused
    /// (``dropRefusedCopy(ofKey:settling:)``): the key's next read asks main. The copy goes first, and the mark is
    /// saved only then: a drop the replay's cancellation stopped (``isInterrupted(done:)``) leaves the record as it
    /// was, queued, with its copy (``Delivery/interrupted``) — marked first, the write stayed set aside with its copy
    /// in the cache for good. A write whose mark cannot be saved then waits without its copy, which its reads and
    /// streams do not need (they show the queued write): once main takes it, the key's next read asks main.
    private func setAside(
        _ original: PendingWrite,
        because error: any Error,
        evenIfUnsaved: Bool = false
    ) async -> Delivery {
        var record = original
        record.isSetAside = true
        record.lastError = PendingWrite.describe(error)
        // The copy main refused dropped, and the write marked, in the key's turn: a stream that sees the key settle
        // finds the copy gone (``cacheStillHolds(_:of:cache:origin:turns:)``).
        await cacheTurns.take(record.key)
        // A write main's value won (`evenIfUnsaved`) left the cache at main's value: nothing to drop.
        let dropped = evenIfUnsaved ? true : await dropRefusedCopy(ofKey: record.key, settling: record.sequence)
        if Self.isInterrupted(done: dropped) {
            await cacheTurns.giveBack(record.key)
            return .interrupted
        }
        let marked = (try? await outbox.update(record)) != nil
        await cacheTurns.giveBack(record.key)
        if marked || evenIfUnsaved { return .setAside }
        var waiting = original
        await waitForBackoff(&waiting, after: error)
        return .failed(error)
    }

    /// The pause before replay `attempt` after `error`: the backoff's jittered pause, or what the error asks
    /// (`Retry-After`) when that is longer, up to the backoff's maximum.
    ///
    /// What the server asks is a floor, never the whole pause: a `Retry-After: 0` (or a date already past) would
    /// otherwise make the timer replay the write at once, again and again, as fast as the server answers.
    func pause(after error: any Error, attempt: Int) -> Duration {
        let unit = randomUnit.withLock { random -> Double in
            Double(random.next() >> 11) * 0x1p-53
        }
        let rule = configuration.replayBackoff
        let backoff = rule.delay(beforeRetry: max(attempt, 1), unitRandom: unit)
        guard let asked = (error as? any RetryAdvising)?.suggestedRetryDelay else { return backoff }
        return min(max(asked, backoff), rule.maximum)
    }
}
