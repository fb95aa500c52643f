import struct Foundation.Date

/// Gathers single-key reads into batches and fans each batch's answer out to its callers: the engine of
/// ``BatchingDataSource``.
///
/// Reads are gathered per query type (an `IdQuery<Int>` never shares a batch with an `IdQuery<String>`). A batch
/// is sent when it holds `maxBatchSize` keys, or when the first read of the batch has waited one scheduling tick
/// (a `Task.yield()`) or, with a window, the window on the clock. Callers of the same key share its slot.
final class BatchLoader<Value: Sendable>: Sendable {
    /// What one key's callers get: its entry or an error, with what the batch's read found that each caller takes in
    /// its own task (`SharedAnswer`): a stale answer of the batch is stale to every caller's own read, and the
    /// steps of the batch's sources reach every caller's trail, not only the trail of the caller whose task sent it.
    private typealias Answer = SharedAnswer<StoredEntry<Value>>

    /// A caller waiting for its key's answer.
    private typealias Waiter = CheckedContinuation<Answer, Never>

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
    ///
    /// The batch belongs to no one caller's call: it is sent from a task of its own, outside the call of the read
    /// that opened or filled it, and each caller takes its answer in its own task.
    func entry<Q: BatchableQuery>(_ query: Q) async throws -> StoredEntry<Value> {
        let answer = await withCheckedContinuation { (waiter: Waiter) in
            switch join(query, waiter) {
            case .send(let batch): CallContext.startShared { await self.send(batch, for: $0) }
            case .scheduleSend(let type, let id):
                // The window runs from the batch's first read, however late the task that waits for it starts
                let closes = window == .zero ? nil : clock.now().addingTimeInterval(window.timeInterval)
                CallContext.startShared(atOnce: false) {
                    await self.sendAfterWaiting(type, id, until: closes, for: $0)
                }
            case .wait: break
            }
        }
        return try answer.take()
    }

    private func join<Q: BatchableQuery>(_ query: Q, _ waiter: Waiter) -> Step {
        let type = ObjectIdentifier(Q.self)
        return state.withLock { state -> Step in
            var batch: Batch
            // Taken out of the table, not copied: appending to a copy while the table holds the same storage would
            // copy the whole batch at every read (quadratic in the batch's size, under the lock).
            if let open = state.open.removeValue(forKey: type) {
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

    private func sendAfterWaiting(
        _ type: ObjectIdentifier,
        _ id: UInt64,
        until closes: Date?,
        for starter: CallTrail?
    ) async {
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
        if let batch { await send(batch, for: starter) }
    }

    /// Sends one batch and gives each caller its own answer: its entry, *not found* for a key the source did not
    /// answer, or the source's error to every caller of the batch; with the steps of the batch's read.
    ///
    /// A source may fail a whole list with *not found* for the first key it lacks (a store's list read does, a
    /// repository carries the values it found, without their metadata), or with another error about one entry: a
    /// value that no longer decodes, a key it refuses, a value past its read limit, a value its validator refuses
    /// (*not valid*, carrying every entry of the list). Then a batch of several is read again in halves, at the same
    /// time, and a half that fails so is halved in turn, down to single keys: such a key fails only its own callers
    /// (a *not valid* key with its own stale entry, as a single read gives it), the others get their entries whole,
    /// and one bad key among n costs about 2·log₂ n list reads, not n (a caller's id in a public route is the
    /// caller's to choose). Each caller gets the steps of the read that answered it. Any other error (the network,
    /// the server) is every caller's: reading the keys again would only repeat it.
    ///
    /// - Parameters:
    ///   - batch: The batch.
    ///   - starter: The trail of the call whose task sends the batch, if any.
    private func send(_ batch: Batch, for starter: CallTrail?) async {
        let answered = await answers(batch.queries[...], batch.keys[...], batch.makeQuery, for: starter)
        for (key, answer) in zip(batch.keys, answered) {
            for waiter in batch.waiters[key] ?? [] { waiter.resume(returning: answer) }
        }
    }

    /// The answers of `keys` read as one list, or, when that read fails for one entry (``entryCodes``) and there are
    /// several keys, of each half read the same way, at the same time.
    private func answers(
        _ queries: ArraySlice<any BatchableQuery>,
        _ keys: ArraySlice<String>,
        _ makeQuery: @escaping @Sendable ([any BatchableQuery]) -> any MultiKeyedQuery,
        for starter: CallTrail?
    ) async -> [Answer] {
        var list = await read(Array(queries), keys: Array(keys), makeQuery, for: starter)
        guard case .failure(let error as StrataError) = list.result, Self.entryCodes.contains(error.code) else {
            return Self.answers(of: list, keys: Array(keys))
        }
        guard keys.count > 1 else {
            // A single read answered by a list read: a stale list of one is that read's own stale entry
            list.result = .failure(error.singleStaleEntry(as: Value.self))
            return Self.answers(of: list, keys: Array(keys))
        }
        let middle = keys.count / 2
        async let first = answers(queries.prefix(middle), keys.prefix(middle), makeQuery, for: starter)
        async let second = answers(queries.dropFirst(middle), keys.dropFirst(middle), makeQuery, for: starter)
        return await first + second
    }

    /// The codes of an error a list read may fail with for one of its entries alone (see ``send(_:for:)``).
    private static var entryCodes: Set<StrataError.Code> {
        [.notFound, .notValid, .dataSerialization, .invalidArgument, .tooLarge]
    }

    /// The entries of `keys`, one per key (`nil` for a key the source did not answer), read as one list: the
    /// source's answer matched to the keys the query sent names, in its order, with whether the source (a
    /// repository) answered with stale cached values and the steps of the read.
    ///
    /// A query that ``BatchableQuery/batch(_:)`` makes names the keys in their order; one of the app's own may sort
    /// them, or leave one out: each caller still gets its own key's entry (or *not found*), never another's.
    private func read(
        _ queries: [any BatchableQuery],
        keys: [String],
        _ makeQuery: @Sendable ([any BatchableQuery]) -> any MultiKeyedQuery,
        for starter: CallTrail?
    ) async -> SharedAnswer<[StoredEntry<Value>?]> {
        let query = makeQuery(queries)
        return await SharedAnswer.of(for: starter) { [load] in
            let sent = query.keys
            let entries = try await load(query).matched(to: sent)
            return sent == keys ? entries : Self.entries(entries, of: sent, for: keys)
        }
    }

    /// The entries of `keys` among `entries`, the answer to a query naming `sent`; `nil` for a key `sent` does not
    /// name.
    private static func entries(
        _ entries: [StoredEntry<Value>?],
        of sent: [String],
        for keys: [String]
    ) -> [StoredEntry<Value>?] {
        var byKey: [String: StoredEntry<Value>?] = [:]
        for (key, entry) in zip(sent, entries) where byKey[key] == nil { byKey[key] = entry }
        return keys.map { byKey[$0] ?? nil }
    }

    /// Each key's answer from the list read of `keys`: its entry, *not found* for a key the source did not answer,
    /// or the read's error.
    private static func answers(of list: SharedAnswer<[StoredEntry<Value>?]>, keys: [String]) -> [Answer] {
        keys.indices.map { index in
            list.flatMap { $0[index].map { .success($0) } ?? .failure(StrataError.miss(key: keys[index])) }
        }
    }
}
