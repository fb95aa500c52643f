import struct Foundation.Date

/// Gathers single-key reads into batches and fans each batch's answer out to its callers: the engine of
/// ``BatchingDataSource``.
///
/// Reads are gathered per query type (an `IdQuery<Int>` never shares a batch with an `IdQuery<String>`). A batch
/// is sent when it holds `maxBatchSize` keys, or when the first read of the batch has waited one scheduling tick
/// (a `Task.yield()`) or, with a window, the window on the clock. Callers of the same key share its slot.
final class BatchLoader<Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<StoredEntry<Value>, any Error>

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
        self.window = window
        self.clock = clock
        self.load = load
    }

    /// The number of reads waiting in batches not sent yet.
    var pendingCount: Int { state.withLock { $0.pendingCount } }

    /// The entry of `query`, read in a batch with the other reads that arrive with it.
    func entry<Q: BatchableQuery>(_ query: Q) async throws -> StoredEntry<Value> {
        try await withCheckedThrowingContinuation { (waiter: Waiter) in
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
    private func send(_ batch: Batch) async {
        do {
            let entries = try await load(batch.makeQuery(batch.queries)).matched(to: batch.keys)
            for (key, entry) in zip(batch.keys, entries) {
                let outcome =
                    entry.map { Result<StoredEntry<Value>, any Error>.success($0) }
                    ?? .failure(StrataError.miss(key: key))
                for waiter in batch.waiters[key] ?? [] { waiter.resume(with: outcome) }
            }
        } catch {
            for waiter in batch.waiters.values.joined() { waiter.resume(throwing: error) }
        }
    }
}
