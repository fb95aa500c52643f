import struct Foundation.Date

/// Gathers single-key reads into batches and fans each batch's answer out to its callers: the engine of
/// ``BatchingDataSource``.
///
/// Reads are gathered per query type (an `IdQuery<Int>` never shares a batch with an `IdQuery<String>`). A batch
/// is sent when it holds `maxBatchSize` keys, or when the first read of the batch has waited one scheduling tick
/// (a `Task.yield()`) or, with a window, the window on the clock. Callers of the same key share its slot.
final class BatchLoader<Value: Sendable>: Sendable {
    /// A caller waiting for its key's answer, with the report of the repository read it serves
    /// (``StaleAnswerReport``): a stale answer of the batch is stale to every caller, not only to the one whose task
    /// sent it.
    private struct Waiter {
        let continuation: CheckedContinuation<StoredEntry<Value>, any Error>
        let staleReport: AtomicCount?

        /// Gives the caller its answer, marked stale to its own read when `isStale`.
        func resume(with outcome: Outcome, isStale: Bool) {
            if isStale, case .success = outcome { staleReport?.add(1) }
            continuation.resume(with: outcome)
        }
    }

    /// One batch being gathered.
    private struct Batch {
        let id: UInt64
        /// Makes the batch's query from its queries, all of the type the batch was opened for.
        let makeQuery: @Sendable ([any BatchableQuery]) -> any MultiKeyedQuery
        var keys: [String] = []
        var queries: [any BatchableQuery] = []
        var waiters: [String: [Waiter]] = [:]
    }

    private struct State {
        var open: [ObjectIdentifier: Batch] = [:]
        var nextID: UInt64 = 0
        var pendingCount = 0
    }

    /// What a read does after joining a batch.
    private enum Step {
        case send(Batch)
        case scheduleSend(ObjectIdentifier, UInt64)
        case wait
    }

    private let state = Locked(State())
    private let maxBatchSize: Int
    private let window: Duration
    private let clock: any WallClock
    private let load: @Sendable (any MultiKeyedQuery) async throws -> [StoredEntry<Value>]

    init(
        maxBatchSize: Int,
        window: Duration,
        clock: any WallClock,
        load: @escaping @Sendable (any MultiKeyedQuery) async throws -> [StoredEntry<Value>]
    ) {
        self.maxBatchSize = max(maxBatchSize, 1)
        // A window of the largest durations made a deadline no sleep reaches without overflowing
        self.window = window.clampedAsWait
        self.clock = clock
        self.load = load
    }

    /// The number of reads waiting in batches not sent yet.
    var pendingCount: Int { state.withLock { $0.pendingCount } }

    /// The entry of `query`, read in a batch with the other reads that arrive with it.
    func entry<Q: BatchableQuery>(_ query: Q) async throws -> StoredEntry<Value> {
        try await withCheckedThrowingContinuation { continuation in
            let waiter = Waiter(continuation: continuation, staleReport: StaleAnswerReport.current)
            switch join(query, waiter) {
            case .send(let batch): Task { await self.send(batch) }
            case .scheduleSend(let type, let id):
                // The window runs from the batch's first read, however late the task that waits for it starts
                let closes = window == .zero ? nil : clock.now().addingTimeInterval(window.timeInterval)
                Task { await self.sendAfterWaiting(type, id, until: closes) }
            case .wait: break
            }
        }
    }

    private func join<Q: BatchableQuery>(_ query: Q, _ waiter: Waiter) -> Step {
        let type = ObjectIdentifier(Q.self)
        return state.withLock { state -> Step in
            var batch: Batch
            if let open = state.open[type] {
                batch = open
            } else {
                state.nextID &+= 1
                batch = Batch(id: state.nextID) { queries in Q.batch(queries.compactMap { $0 as? Q }) }
            }
            let opens = batch.keys.isEmpty
            if batch.waiters[query.key] == nil {
                batch.keys.append(query.key)
                batch.queries.append(query)
            }
            batch.waiters[query.key, default: []].append(waiter)
            state.pendingCount += 1
            if batch.keys.count >= maxBatchSize {
                state.open[type] = nil
                state.pendingCount -= batch.waiters.values.reduce(0) { $0 + $1.count }
                return .send(batch)
            }
            state.open[type] = batch
            return opens ? .scheduleSend(type, batch.id) : .wait
        }
    }

    private func sendAfterWaiting(_ type: ObjectIdentifier, _ id: UInt64, until closes: Date?) async {
        if let closes {
            try? await clock.sleep(until: closes)
        } else {
            await Task.yield()
        }
        let batch = state.withLock { state -> Batch? in
            guard let batch = state.open[type], batch.id == id else { return nil }
            state.open[type] = nil
            state.pendingCount -= batch.waiters.values.reduce(0) { $0 + $1.count }
            return batch
        }
        if let batch { await send(batch) }
    }

    /// Sends one batch and gives each caller its own answer: its entry, *not found* for a key the source did not
    /// answer, or the source's error to every caller of the batch.
    ///
    /// A source may fail a whole list with *not found* for the first key it lacks (a store's list read does, a
    /// repository carries the values it found, without their metadata). Then each key of a batch of several is read
    /// on its own, so a missing key fails only its own callers, and the others get their entries whole.
    private func send(_ batch: Batch) async {
        let outcomes: [(outcome: Outcome, isStale: Bool)]
        do {
            let (answers, isStale) = try await entries(of: batch.queries, keys: batch.keys, batch.makeQuery)
            outcomes = answers.map { (outcome($0), isStale) }
        } catch let error as StrataError where error.code == .notFound && batch.keys.count > 1 {
            outcomes = await eachOnItsOwn(batch)
        } catch {
            outcomes = batch.keys.map { _ in (.failure(error), false) }
        }
        for (key, answer) in zip(batch.keys, outcomes) {
            for waiter in batch.waiters[key] ?? [] { waiter.resume(with: answer.outcome, isStale: answer.isStale) }
        }
    }

    /// What one key's callers get: its entry or an error.
    private typealias Outcome = Result<StoredEntry<Value>, any Error>

    /// The entries of `keys`, one per key (`nil` for a key the source did not answer), read as one list: the
    /// source's answer matched to the keys; and whether the source (a repository) answered with stale cached values,
    /// read in a report of the batch's own.
    private func entries(
        of queries: [any BatchableQuery],
        keys: [String],
        _ makeQuery: @Sendable ([any BatchableQuery]) -> any MultiKeyedQuery
    ) async throws -> (answers: [(key: String, entry: StoredEntry<Value>?)], isStale: Bool) {
        let query = makeQuery(queries)
        let (entries, isStale) = try await StaleAnswerReport.reading { [load] in
            try await load(query).matched(to: keys)
        }
        return (Array(zip(keys, entries)), isStale)
    }

    /// A caller's answer for its key: the entry, or *not found*.
    private func outcome(_ answer: (key: String, entry: StoredEntry<Value>?)) -> Outcome {
        answer.entry.map { .success($0) } ?? .failure(StrataError.miss(key: answer.key))
    }

    /// The answers of a batch whose list read failed with *not found*: each key read as a list of its own, at the
    /// same time, so each caller gets its key's answer or error.
    private func eachOnItsOwn(_ batch: Batch) async -> [(outcome: Outcome, isStale: Bool)] {
        let makeQuery = batch.makeQuery
        let answers = await withTaskGroup(of: (String, Outcome, Bool).self) { group in
            for (key, query) in zip(batch.keys, batch.queries) {
                group.addTask {
                    do {
                        let (answer, isStale) = try await self.entries(of: [query], keys: [key], makeQuery)
                        return (key, answer.first.map(self.outcome) ?? .failure(StrataError.miss(key: key)), isStale)
                    } catch {
                        return (key, .failure(error), false)
                    }
                }
            }
            return await group.reduce(into: [String: (Outcome, Bool)]()) { $0[$1.0] = ($1.1, $1.2) }
        }
        return batch.keys.map { answers[$0] ?? (.failure(StrataError.miss(key: $0)), false) }
    }
}
