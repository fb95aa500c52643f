import Foundation
import Strata

/// A ``Strata/CacheRepository`` whose writes work offline: a put or a delete lands in the cache at once, and when
/// main fails with a retryable error the write waits in a durable ``Outbox`` and is replayed later, in order,
/// exactly once.
///
/// A put or delete writes the cache, then main (as ``Strata/CacheSyncOperation``). When main fails with an error
/// ``Configuration/isRetryable`` accepts (a transport failure, a timeout, HTTP 5xx, 408, 429), the write is
/// recorded in the outbox and the call succeeds with ``WriteStatus/pending(_:)``; any other error is thrown, nothing
/// is queued, and the cache drops its copy of the refused value (unless a later write of the key waits). While a write of a key waits, later writes of that key
/// join the queue behind it, so main receives each key's writes in order.
///
/// Queued writes are replayed — one replay at a time — after the next call main answers (a write, or a read
/// through ``repository``, which observes main's answers: ``Strata/CacheRepository/Configuration/onMainAnswer``), by a timer when
/// their backoff ends (the retry plugin's ``Strata/RetryPlugin/Backoff``), and by ``sync()``. A main answer sends
/// before its backoff ends only a write whose last failure was main being unreachable
/// (``Configuration/isUnreachable``); a write main refused itself (5xx, 429) waits for its backoff. Every write
/// carries an idempotency key (``Strata/IdempotencyKey/current``; the `Idempotency-Key` header of the HTTP data
/// sources), the same for each attempt, so a write main applied before a crash or a lost response is not applied
/// twice. A replay main refuses as a conflict goes to the ``Configuration/conflictResolver``.
///
/// Reads see pending writes: ``get(_:operation:)`` answers a key with a waiting write from the outbox and says
/// so, and ``stream(_:operation:bufferingNewest:)`` marks values ``Strata/RepositoryResponse/isPending`` until
/// main took the key's writes.
///
/// ```swift
/// let notes = try await OfflineRepository.open(
///     main: NotesAPI(client),
///     cache: MemoryDataSource<Note>(),
///     outboxFolder: support.appending(path: "notes.outbox")
/// )
/// let note = Note(id: "1", text: "Buy milk", version: 0)
/// let write = try await notes.put(note, in: KeyQuery(note.id))
/// if write.isPending { showSavingBadge() }
/// ```
public final class OfflineRepository<Main: DataSource, Cache: DataSource>: Sendable
where Main.Value == Cache.Value, Main.Value: Codable {
    /// The values of the repository.
    public typealias Value = Main.Value

    /// The repository the reads and the cache writes go through: the one given, observing main's answers, so a
    /// call main answers through it replays the queued writes at once.
    public let repository: CacheRepository<Main, Cache>

    /// The queue of writes main has not taken yet.
    public let outbox: Outbox

    /// Retry rule, backoff, coalescing, conflict resolver.
    public let configuration: Configuration

    /// The replay timer and the pending trigger.
    let schedule = Locked(ReplaySchedule())

    /// Keeps replays one at a time.
    let replays = ReplayLane()

    /// Orders the cache writes of each key as the outbox numbers them.
    let cacheTurns = KeyTurns()

    /// How to write each first attempt on its way to main into the cache again, by key: a write queued behind it that
    /// the outbox then refuses puts the cache back to it, the value main is getting.
    let firstAttempts = Locked<[String: @Sendable () async throws -> Void]>([:])

    /// The source of the backoff's jitter.
    let randomUnit: Locked<any RandomNumberGenerator & Sendable>

    /// The repository's claim on ``outbox``; `nil` when another repository held it: this one then replays nothing
    /// and refuses writes.
    let outboxClaim: UInt64?

    /// Creates a repository over a cache repository and an open outbox.
    ///
    /// Writes queued before (by an earlier run) are replayed by the timer, by the next successful main call and
    /// by ``sync()``. Reads that main answers replay them when they go through ``repository`` (or ``get(_:operation:)``),
    /// not through the repository given, which does not observe main's answers for this outbox.
    ///
    /// An outbox serves one repository at a time: a repository made while another holds `outbox` never serves it (make
    /// a new one once the other is closed): it replays nothing, its ``sync()`` sends nothing, and its writes fail with
    /// ``Strata/StrataError/Code/alreadyInUse``; its reads work.
    ///
    /// While a write of a key waits in the outbox, main's answers for that key are older than the cache's value (or
    /// its absence): no read of the key writes main's answer into the cache, through this repository or any copy of
    /// `repository`, until the write has reached main (or was dropped) and the repository is open.
    ///
    /// - Parameters:
    ///   - repository: The main and the cache.
    ///   - outbox: The outbox; one repository per outbox.
    ///   - configuration: Retry rule, backoff, coalescing, conflicts.
    public init(repository: CacheRepository<Main, Cache>, outbox: Outbox, configuration: Configuration = .init()) {
        let mainAnswered = MainAnswerRelay()
        self.repository = repository.observingMainAnswers { _ in mainAnswered.fire() }
        self.outbox = outbox
        self.configuration = configuration
        self.randomUnit = Locked(configuration.random)
        self.outboxClaim = outbox.claimService()
        guard let claim = outboxClaim else {
            schedule.withLock { $0.isClosed = true }
            return
        }
        mainAnswered.connect { [weak self] in self?.triggerReplay(.mainAnswered) }
        // While a write of a key waits, main's answers for it are older than the cache's: none is written back.
        let held = self.repository
        outbox.watchQueuedKeys(claim: claim) { key, isQueued in
            if isQueued { held.beginHeldWrite(KeyQuery(key)) } else { held.endHeldWrite(KeyQuery(key)) }
        }
        // A write the app takes back leaves the cache too: main will not get it (``dropRefusedCopy(ofKey:settling:)``).
        let turns = cacheTurns
        outbox.watchDrops(
            DropWatcher(
                claim: claim,
                // The turns are taken and given back through `turns` itself, whether or not the repository is still
                // there: `didDrop` gives back exactly what `willDrop` took.
                willDrop: { keys in for key in keys { await turns.take(key) } },
                didDrop: { [weak self] keys, forgotten in
                    await Self.restoreCache(afterDropping: keys, forgotten: forgotten, in: self, turns: turns)
                }
            )
        )
        triggerReplay(.due)
    }

    /// Opens the outbox in `outboxFolder` and creates a repository over `main` and `cache`.
    ///
    /// - Parameters:
    ///   - main: The authoritative source.
    ///   - cache: The fast source, written first.
    ///   - outboxFolder: The outbox's folder.
    ///   - configuration: Retry rule, backoff, coalescing, conflicts.
    ///   - outboxLimits: The most writes and value bytes the outbox queues; ``Outbox/Limits/default`` by default.
    ///   - diagnostics: Receives the outbox's corruption reports: a damaged record file, moved aside, is a queued
    ///     write that is no longer replayed.
    /// - Throws: As ``Outbox/open(folder:durability:limits:diagnostics:)``.
    public static func open(
        main: Main,
        cache: Cache,
        outboxFolder: URL,
        configuration: Configuration = .init(),
        outboxLimits: Outbox.Limits = .default,
        diagnostics: (@Sendable (StrataError) -> Void)? = nil
    ) async throws -> OfflineRepository {
        let outbox = try await Outbox.open(folder: outboxFolder, limits: outboxLimits, diagnostics: diagnostics)
        return OfflineRepository(
            repository: CacheRepository(main: main, cache: cache),
            outbox: outbox,
            configuration: configuration
        )
    }

    /// Stops the timer, cancels a replayed write on its way and waits for the replay in progress to end, and for the
    /// writes callers began before (each ends within its transport's deadlines); nothing is replayed after, and
    /// writes fail with ``Strata/StrataError/Code/alreadyInUse``. Queued writes stay in the outbox for the next run,
    /// the cancelled replay too (a server that answers slowly does not hold `close()` up for the transport's whole
    /// timeout for it); another repository may then serve the outbox. When it returns, no task the repository started
    /// holds it any more: once the caller lets it go too, its outbox's folder can be opened again at once.
    ///
    /// Called from the repository's own work (by main, a plugin of it or a conflict resolver, during a write or a
    /// replay), it closes the repository and returns without waiting for that work, which it is part of; the outbox
    /// is given back once the work ends.
    public func close() async {
        let (timer, cancelSend) = schedule.withLock { schedule in
            schedule.isClosed = true
            defer { schedule.timer = nil }
            return (schedule.timer, schedule.cancelSend)
        }
        timer?.cancel()
        cancelSend?()
        guard !isInOwnWork else {
            Task { await self.giveOutboxBackWhenIdle() }
            return
        }
        await giveOutboxBackWhenIdle()
    }

    /// Waits for the replay in progress, the writes under way and the tasks the repository started, then gives the
    /// outbox back.
    private func giveOutboxBackWhenIdle() async {
        await replays.run {}
        // A write that began before holds the key turns of this repository: the outbox is given back after it. A
        // replay or a timer's setting still to start ends at once (the repository is closed), and lets go of it.
        await withCheckedContinuation { continuation in
            let done = schedule.withLock { schedule -> Bool in
                guard !schedule.isIdle else { return true }
                schedule.closeWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
        giveOutboxBack()
    }

    deinit {
        schedule.withLock { $0.timer?.cancel() }
        giveOutboxBack()
    }

    /// Stops holding the cache's write-backs for the queued keys and gives the outbox back.
    private func giveOutboxBack() {
        guard let outboxClaim else { return }
        outbox.stopWatchingQueuedKeys(claim: outboxClaim)
        outbox.releaseService(outboxClaim)
    }
}

/// The replay timer and the trigger waiting to run.
struct ReplaySchedule: Sendable {
    /// The task that replays when the earliest backoff ends.
    var timer: Task<Void, Never>?
    /// When ``timer`` wakes; `nil` once it woke, or when there is none.
    var timerWake: Date?
    /// Whether a triggered replay waits to start.
    var isTriggered = false
    /// Which writes the waiting replay sends before their backoff ends.
    var urgency = ReplayUrgency.due
    /// How many triggered replays have not ended yet.
    var unfinished = 0
    /// Whether ``OfflineRepository/close()`` ran.
    var isClosed = false
    /// Cancels the replayed write on its way, if one is: ``OfflineRepository/close()`` calls it.
    var cancelSend: (@Sendable () -> Void)?
    /// How many writes are under way: ``OfflineRepository/close()`` gives the outbox back only once none is.
    var writesUnderWay = 0
    /// How many tasks setting the replay timer have not ended yet.
    var settingTimers = 0
    /// Whom the last write, replay or timer setting under way resumes: a ``OfflineRepository/close()`` waiting for it.
    var closeWaiters: [CheckedContinuation<Void, Never>] = []

    /// Whether nothing the repository started is under way: no write, replay or timer setting.
    var isIdle: Bool { writesUnderWay == 0 && unfinished == 0 && settingTimers == 0 }

    /// Ends one piece of work (`end` moves its count down) and resumes the ``closeWaiters`` when it was the last.
    static func end(in schedule: Locked<Self>, _ end: (inout Self) -> Void) {
        let waiters = schedule.withLock { schedule -> [CheckedContinuation<Void, Never>] in
            end(&schedule)
            guard schedule.isIdle else { return [] }
            defer { schedule.closeWaiters = [] }
            return schedule.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether a timer waking at `wake` takes the place of the pending one: only an earlier one does. Each timer is
    /// set from a reading of the outbox made before the lock is taken, so a later wake may come from an older
    /// reading; a pending timer that wakes too early is harmless (the replay it starts sets the next).
    func replacesTimer(wakingAt wake: Date) -> Bool {
        guard let pending = timerWake else { return true }
        return wake < pending
    }
}
