import Dispatch
import Strata

/// Writes that run after the call that made them returns: one at a time, in the order they were queued, off
/// the caller's task.
///
/// Reads see a write until it is done (``pending(forKey:)``); a later write for a key replaces an earlier one
/// not started yet, in its place in the order; ``drop(_:)`` forgets queued writes and waits for the one running, if
/// any, so that what the caller does next happens after it. ``flush()`` waits, without blocking a thread, until the writes queued before
/// it are done (not those queued after, which a steady stream of writes would never let end).
///
/// Nothing here blocks an async caller but ``drop(_:)``, which waits on its thread for the one write in progress (of the
/// key it drops): it serves synchronous APIs (BlobCache's `remove`, `removeAll`, `cleanPersistent(.all)`), which,
/// called from async code, hold a thread of the pool for that write.
final class WriteBehind<Key: Hashable & Sendable, Write: Sendable>: Sendable {
    /// A queued write: its value, its generation and what carries it out.
    private struct Pending {
        var write: Write
        var generation: UInt64
        /// What the write holds in memory while queued (a blob's bytes), counted against ``limit``.
        var cost: Int
        var perform: @Sendable (Write) throws -> Void
    }

    private struct State {
        var pending: [Key: Pending] = [:]
        var order: [(key: Key, generation: UInt64)] = []
        /// The first entry of `order` not taken yet: taking the first element of an array moves every other one,
        /// and a burst of queued writes made the drain quadratic.
        var head = 0
        var nextGeneration: UInt64 = 0
        /// The cost of the writes in `pending`.
        var queuedCost = 0
        /// The cost reserved by callers of ``reserveRoom(for:)`` that have not released it yet.
        var reservedCost = 0
        /// The callers of ``reserveRoom(for:)`` waiting, in order, with the cost each reserves when woken.
        var roomWaiters: [(id: UInt64, cost: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Where the first caller still waiting is in ``roomWaiters``: the ones before it were let in (a queue read
        /// from its head, so letting one in does not move all the others).
        var roomWaitersHead = 0
        /// The cost the callers waiting reserve between them.
        var roomWaitingCost = 0
        /// Whether a caller of ``reserveRoom(for:)`` waits.
        var hasRoomWaiters: Bool { roomWaitersHead < roomWaiters.count }
        var failures = 0
        var isDraining = false
        /// How many holds keep the drain from starting another write (``hold()``).
        var holds = 0
        /// Whether the drain stopped for a hold, the queue still draining: ``releaseHold()`` starts it again.
        var isParked = false
        var running: Key?
        /// The generation of the write running.
        var runningGeneration: UInt64 = 0
        /// The callers of ``drop(_:)`` blocked until the write of a generation is done.
        var dropWaiters: [(generation: UInt64, gate: DispatchSemaphore)] = []
        /// The callers of ``flush()``, by waiter number, each woken once the writes up to its generation are done
        /// (or its task is cancelled).
        var waiters: [UInt64: (upTo: UInt64, continuation: CheckedContinuation<Void, Never>)] = [:]
        /// The generation of the last entry of `order` taken and done (written, failed or skipped): every write
        /// queued before it is done too.
        var done: UInt64 = 0
        /// The callers of ``settle(_:)``, by key and waiter number, woken when nothing of the key is queued or
        /// running (or their task is cancelled).
        var keyWaiters: [Key: [UInt64: CheckedContinuation<Void, Never>]] = [:]
        /// The number of the last caller of ``flush()`` or ``settle(_:)``, which its cancellation handler removes
        /// it by.
        var lastWaiter: UInt64 = 0

        /// Forgets the queued write of `key`, if any, and its cost.
        mutating func forget(_ key: Key) {
            if let removed = pending.removeValue(forKey: key) { queuedCost -= removed.cost }
        }

        /// Forgets every queued write.
        mutating func forgetAll() {
            pending.removeAll()
            queuedCost = 0
        }

        /// Whether `cost` more fits under `limit` beside what is queued and reserved: always when nothing is, so
        /// that a write costlier than the limit goes alone rather than never.
        func fits(_ cost: Int, under limit: Int) -> Bool {
            let held = queuedCost + reservedCost
            return held == 0 || (held <= limit && cost <= limit - held)
        }

        /// Reserves the room of the callers of ``reserveRoom(for:)`` that fit under `limit`, in the order they
        /// came (a caller that does not fit holds back the ones behind it), and takes them to be woken.
        mutating func admit(under limit: Int) -> [CheckedContinuation<Void, Never>] {
            var admitted: [CheckedContinuation<Void, Never>] = []
            while hasRoomWaiters, fits(roomWaiters[roomWaitersHead].cost, under: limit) {
                let waiter = roomWaiters[roomWaitersHead]
                reservedCost += waiter.cost
                roomWaitingCost -= waiter.cost
                admitted.append(waiter.continuation)
                roomWaitersHead += 1
            }
            if !hasRoomWaiters {
                roomWaiters.removeAll(keepingCapacity: true)
                roomWaitersHead = 0
            } else if roomWaitersHead >= 64, roomWaitersHead * 2 >= roomWaiters.count {
                roomWaiters.removeFirst(roomWaitersHead)
                roomWaitersHead = 0
            }
            return admitted
        }

        /// Takes the caller of ``reserveRoom(for:)`` numbered `id` out of the queue if it still waits, with the callers
        /// behind it that now fit (it may have held them back): the continuations to resume, the caller's first.
        mutating func withdrawRoomWaiter(_ id: UInt64, under limit: Int) -> [CheckedContinuation<Void, Never>] {
            guard let position = roomWaiters[roomWaitersHead...].firstIndex(where: { $0.id == id }) else { return [] }
            let waiter = roomWaiters.remove(at: position)
            roomWaitingCost -= waiter.cost
            return [waiter.continuation] + admit(under: limit)
        }

        /// Takes the waiters of `key` when nothing of it is queued or running any more.
        mutating func settled(_ key: Key) -> [CheckedContinuation<Void, Never>] {
            guard pending[key] == nil, running != key else { return [] }
            return keyWaiters.removeValue(forKey: key).map { Array($0.values) } ?? []
        }

        /// Takes the waiters of every key that is settled.
        mutating func settledKeys() -> [CheckedContinuation<Void, Never>] {
            keyWaiters.keys.flatMap { settled($0) }
        }

        /// Records that the entry of `generation` is done, releases the callers of ``drop(_:)`` that waited for it, and
        /// takes the callers of ``flush()`` that did.
        mutating func finished(_ generation: UInt64) -> [CheckedContinuation<Void, Never>] {
            done = max(done, generation)
            if !dropWaiters.isEmpty {
                for waiter in dropWaiters where waiter.generation <= done { waiter.gate.signal() }
                dropWaiters.removeAll { $0.generation <= done }
            }
            let woken = waiters.filter { $0.value.upTo <= done }
            for id in woken.keys { waiters[id] = nil }
            return woken.values.map { $0.continuation }
        }

        /// The next entry of `order`, if any; the taken ones are let go now and then, in one move.
        mutating func takeNext() -> (key: Key, generation: UInt64)? {
            guard head < order.count else {
                order.removeAll()
                head = 0
                return nil
            }
            defer {
                head += 1
                if head >= 1_024, head * 2 >= order.count {
                    order.removeFirst(head)
                    head = 0
                }
            }
            return order[head]
        }
    }

    private let state = Locked(State())
    /// The cost the queued and reserved writes may hold before ``reserveRoom(for:)`` waits.
    let limit: Int
    /// The cost the callers of ``reserveRoom(for:)`` waiting may hold between them before one more is refused.
    let waitingLimit: Int

    /// Creates a queue whose writes may hold `limit` in cost (``enqueue(_:forKey:cost:perform:)``) before a
    /// caller of ``reserveRoom(for:)`` waits, and whose waiting callers may hold `waitingLimit` (by default `limit`);
    /// no limit by default, and none below zero.
    init(limit: Int = .max, waitingLimit: Int? = nil) {
        self.limit = max(0, limit)
        self.waitingLimit = max(0, waitingLimit ?? limit)
    }

    /// The number of writes that failed.
    var failures: Int { state.withLock { $0.failures } }

    /// The queued write for `key` not done yet, if any.
    func pending(forKey key: Key) -> Write? {
        state.withLock { $0.pending[key]?.write }
    }

    /// How many callers of ``reserveRoom(for:)`` wait.
    var waitingForRoom: Int { state.withLock { $0.roomWaiters.count - $0.roomWaitersHead } }

    /// The cost of the queued writes.
    var queuedCost: Int { state.withLock { $0.queuedCost } }

    /// The cost reserved and not released yet.
    var reservedCost: Int { state.withLock { $0.reservedCost } }

    /// How many callers of ``flush()`` wait.
    var flushing: Int { state.withLock { $0.waiters.count } }

    /// How many callers of ``settle(_:)`` wait.
    var settling: Int { state.withLock { $0.keyWaiters.values.reduce(0) { $0 + $1.count } } }

    /// Queues `write` for `key`, replacing one queued earlier and not started; `perform` runs it later.
    ///
    /// - Parameters:
    ///   - write: The write.
    ///   - key: What it writes.
    ///   - cost: What it holds in memory until done (a blob's bytes), counted against ``limit``.
    ///   - perform: Carries it out, on a thread of the system's pool.
    func enqueue(
        _ write: Write,
        forKey key: Key,
        cost: Int = 0,
        perform: @escaping @Sendable (Write) throws -> Void
    ) {
        let startsDrain = state.withLock { state in
            // A write that replaces one not started takes its place in the order: a flush waiting for that one
            // waits for this one, which carries the key's value, and no longer for what was queued after it. (One
            // that runs keeps its generation, which its end compares: the new write comes after it. Only the running
            // write is told by its generation: one queued behind it is replaced as any other.)
            let generation: UInt64
            if let replaced = state.pending[key]?.generation,
                !(state.running == key && state.runningGeneration == replaced)
            {
                generation = replaced
            } else {
                state.nextGeneration += 1
                generation = state.nextGeneration
                state.order.append((key, generation))
            }
            state.forget(key)
            state.queuedCost += cost
            state.pending[key] = Pending(write: write, generation: generation, cost: cost, perform: perform)
            defer { state.isDraining = true }
            return !state.isDraining
        }
        guard startsDrain else { return }
        // A thread of the system's pool, not the task pool: the writes are blocking file I/O.
        DispatchQueue.global(qos: .utility).async { [self] in drain() }
    }

    /// Holds the queue: once the write running, if any, is done, the writes queued wait — no thread blocked —
    /// until as many ``releaseHold()`` calls. What a test uses to keep writes queued for as long as it needs.
    func hold() {
        state.withLock { $0.holds += 1 }
    }

    /// Ends one ``hold()``; the last one lets the queue drain again.
    func releaseHold() {
        let resumes = state.withLock { state -> Bool in
            state.holds = max(0, state.holds - 1)
            guard state.holds == 0, state.isParked else { return false }
            state.isParked = false
            return true
        }
        if resumes { DispatchQueue.global(qos: .utility).async { [self] in drain() } }
    }

    /// Changes the queued write for `key`, if it has not started.
    func update(forKey key: Key, _ body: (inout Write) -> Void) {
        state.withLock { state in
            guard var pending = state.pending[key] else { return }
            body(&pending.write)
            state.pending[key] = pending
        }
    }

    /// Forgets the write queued for `key` without waiting; returns whether a write of `key` is running now (it
    /// may land after the call returns).
    func cancel(_ key: Key) -> Bool {
        let (isRunning, settled) = state.withLock { state in
            state.forget(key)
            return (state.running == key, state.settled(key) + state.admit(under: limit))
        }
        for waiter in settled { waiter.resume() }
        return isRunning
    }

    /// Forgets the write queued for `key` (every write when `nil`) and waits for the write of `key` running (any write
    /// for `nil`), if one is: for synchronous APIs only. The writes queued after it are not waited for.
    func drop(_ key: Key?) {
        let (settled, gate) = state.withLock { state -> ([CheckedContinuation<Void, Never>], DispatchSemaphore?) in
            if let key { state.forget(key) } else { state.forgetAll() }
            var gate: DispatchSemaphore?
            if let running = state.running, key == nil || running == key {
                let made = DispatchSemaphore(value: 0)
                state.dropWaiters.append((state.runningGeneration, made))
                gate = made
            }
            return (state.settledKeys() + state.admit(under: limit), gate)
        }
        for waiter in settled { waiter.resume() }
        gate?.wait()
    }

    /// Waits until `cost` more fits under ``limit`` beside the writes queued and the room reserved, then reserves
    /// it; returns at once when it fits and nobody waits ahead. Suspends; never blocks a thread.
    ///
    /// A caller that queues writes faster than they are done reserves the room of its write first, queues it,
    /// then gives the reservation back (``release(_:)``), so the queue stays within the limit however many callers
    /// arrive at once. Callers are let in in the order they came; a write costlier than the limit waits until the
    /// queue is empty, then goes alone.
    ///
    /// The callers waiting hold their writes in memory too, so they may hold ``waitingLimit`` between them: past it
    /// (a disk that stalls while fetches of new keys go on arriving) a caller is refused at once rather than wait,
    /// and writes nothing; the refusal counts as a failure. A caller whose task is cancelled while it waits (a
    /// background refresh let go, a request past its deadline) stops waiting at once, reserves nothing and writes
    /// nothing, as a refused one: a disk that hangs must not hold it.
    ///
    /// - Parameter cost: What the caller's write will hold in memory (a blob's bytes).
    /// - Returns: The cost reserved, for ``release(_:)``; `nil` when the caller was refused or cancelled.
    func reserveRoom(for cost: Int) async -> Int? {
        let cost = max(0, cost)
        let id = state.withLock { state -> UInt64 in
            state.lastWaiter &+= 1
            return state.lastWaiter
        }
        // Whether the caller was let in: set under the state's lock when it is (at once, or by `admit`).
        let outcome = Locked<Int?>(nil)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state -> Bool in
                    // Checked under the lock: a cancellation handler that ran before the waiter was recorded found
                    // nothing to take back.
                    if Task.isCancelled { return false }
                    guard !state.hasRoomWaiters, state.fits(cost, under: limit) else {
                        let waiting = state.roomWaitingCost
                        guard !state.hasRoomWaiters || (waiting <= waitingLimit && cost <= waitingLimit - waiting)
                        else {
                            state.failures += 1
                            return false
                        }
                        state.roomWaiters.append((id, cost, continuation))
                        state.roomWaitingCost += cost
                        outcome.withLock { $0 = cost }
                        return true
                    }
                    state.reservedCost += cost
                    outcome.withLock { $0 = cost }
                    return false
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            let woken = state.withLock { state in
                let woken = state.withdrawRoomWaiter(id, under: limit)
                // Withdrawn before it was let in: it reserved nothing.
                if !woken.isEmpty { outcome.withLock { $0 = nil } }
                return woken
            }
            for waiter in woken { waiter.resume() }
        }
        return outcome.withLock { $0 }
    }

    /// Reserves room for `cost` only when it fits at once and nobody waits for room (as ``reserveRoom(for:)`` would
    /// let the caller in without waiting); never waits. For a caller that holds a turn others wait for, which must not
    /// wait for room there: a caller waiting for room may be waiting for that turn next.
    ///
    /// - Returns: The cost reserved, for ``release(_:)``; `nil` when it did not fit (counted as a failure: the caller
    ///   writes nothing).
    func reserveRoomIfItFits(for cost: Int) -> Int? {
        let cost = max(0, cost)
        return state.withLock { state in
            guard !state.hasRoomWaiters, state.fits(cost, under: limit) else {
                state.failures += 1
                return nil
            }
            state.reservedCost += cost
            return cost
        }
    }

    /// Gives back room reserved by ``reserveRoom(for:)``, once the write it was for is queued or given up, and
    /// lets in the callers waiting that now fit.
    func release(_ reserved: Int) {
        let admitted = state.withLock { state in
            state.reservedCost -= reserved
            return state.admit(under: limit)
        }
        for waiter in admitted { waiter.resume() }
    }

    /// Waits until every write queued before the call is done (or a later one for its key, which replaced it); returns
    /// at once when none is queued, and when the calling task is cancelled. Writes queued after the call are not
    /// waited for.
    func flush() async {
        await state.suspend(numbering: \.lastWaiter) { state, id, continuation in
            guard state.isDraining, state.done < state.nextGeneration else { return false }
            state.waiters[id] = (state.nextGeneration, continuation)
            return true
        } removing: { state, id in
            state.waiters.removeValue(forKey: id)?.continuation
        }
    }

    /// Waits until the write queued for `key`, if any, is done, and none of `key` runs, or until the calling task is
    /// cancelled; the writes of other keys are not waited for.
    func settle(_ key: Key) async {
        await state.suspend(numbering: \.lastWaiter) { state, id, continuation in
            guard state.pending[key] != nil || state.running == key else { return false }
            state.keyWaiters[key, default: [:]][id] = continuation
            return true
        } removing: { state, id in
            defer { if state.keyWaiters[key]?.isEmpty == true { state.keyWaiters[key] = nil } }
            return state.keyWaiters[key]?.removeValue(forKey: id)
        }
    }

    /// What the drain does next.
    private enum Step {
        case write(Key, UInt64, Pending)
        case finish([CheckedContinuation<Void, Never>])
        case wake([CheckedContinuation<Void, Never>])
        /// Stop, the queue held (``hold()``).
        case park
    }

    /// Runs the write `step` holds and lets go of it (and of all its closure holds, such as the cache it writes for)
    /// before returning: a caller of ``flush()`` resumed after it may release that cache and open its folder again at
    /// once. Whether the write succeeded.
    private static func perform(taking step: inout Step) -> Bool {
        guard case .write(_, _, let pending) = step else { return true }
        step = .wake([])
        return (try? pending.perform(pending.write)) != nil
    }

    /// Runs the queued writes in order until none is left, then wakes the callers of ``flush()``.
    private func drain() {
        while true {
            var step = state.withLock { state -> Step in
                if state.holds > 0 {
                    state.isParked = true
                    return .park
                }
                guard let (key, generation) = state.takeNext() else {
                    // Idle in the same critical section that finds the queue empty, so an enqueue either
                    // sees a drain running that will take its write, or starts one.
                    state.isDraining = false
                    defer { state.waiters.removeAll() }
                    state.done = state.nextGeneration
                    return .finish(
                        state.waiters.values.map { $0.continuation } + state.settledKeys() + state.admit(under: limit)
                    )
                }
                guard let pending = state.pending[key], pending.generation == generation else {
                    return .wake(state.finished(generation))
                }
                state.running = key
                state.runningGeneration = generation
                return .write(key, generation, pending)
            }
            guard case .write(let key, let generation, _) = step else {
                if case .park = step { return }
                if case .wake(let waiters) = step { for waiter in waiters { waiter.resume() } }
                if case .finish(let waiters) = step {
                    for waiter in waiters { waiter.resume() }
                    return
                }
                continue
            }
            let failed = !Self.perform(taking: &step)
            let woken = state.withLock { state in
                if failed { state.failures += 1 }
                state.running = nil
                if state.pending[key]?.generation == generation { state.forget(key) }
                return state.settled(key) + state.admit(under: limit) + state.finished(generation)
            }
            for waiter in woken { waiter.resume() }
        }
    }
}
