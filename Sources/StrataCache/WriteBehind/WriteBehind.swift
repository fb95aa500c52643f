import Dispatch
import Strata

/// Writes that run after the call that made them returns: one at a time, in the order they were queued, off
/// the caller's task.
///
/// Reads see a write until it is done (``pending(forKey:)``); a later write for a key replaces an earlier one
/// not started yet; ``drop(_:)`` forgets queued writes and waits for the one running, if any, so that what the
/// caller does next happens after it. ``flush()`` waits, without blocking a thread, until nothing is queued.
///
/// Nothing here blocks an async caller: the only wait is ``drop(_:)``'s on the one write in progress, a lock
/// held for the length of that write, from a synchronous API.
final class WriteBehind<Key: Hashable & Sendable, Write: Sendable>: Sendable {
    /// A queued write: its value, its generation and what carries it out.
    private struct Pending {
        var write: Write
        var generation: UInt64
        var perform: @Sendable (Write) throws -> Void
    }

    private struct State {
        var pending: [Key: Pending] = [:]
        var order: [(key: Key, generation: UInt64)] = []
        var nextGeneration: UInt64 = 0
        var failures = 0
        var isDraining = false
        var running: Key?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    /// Held while one write runs, so ``drop(_:)`` can wait for it; counts the writes run. (Not a `Locked<Void>`:
    /// ThreadSanitizer reports accesses to a zero-sized state under the lock as racing.)
    private let writing = Locked(0)

    /// The number of writes that failed.
    var failures: Int { state.withLock { $0.failures } }

    /// The queued write for `key` not done yet, if any.
    func pending(forKey key: Key) -> Write? {
        state.withLock { $0.pending[key]?.write }
    }

    /// Queues `write` for `key`, replacing one queued earlier and not started; `perform` runs it later.
    func enqueue(_ write: Write, forKey key: Key, perform: @escaping @Sendable (Write) throws -> Void) {
        let startsDrain = state.withLock { state in
            state.nextGeneration += 1
            state.pending[key] = Pending(write: write, generation: state.nextGeneration, perform: perform)
            state.order.append((key, state.nextGeneration))
            defer { state.isDraining = true }
            return !state.isDraining
        }
        guard startsDrain else { return }
        // A thread of the system's pool, not the task pool: the writes are blocking file I/O.
        DispatchQueue.global(qos: .utility).async { [self] in drain() }
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
        state.withLock { state in
            state.pending[key] = nil
            return state.running == key
        }
    }

    /// Forgets the write queued for `key` (every write when `nil`) and waits for the write running, if any:
    /// for synchronous APIs only.
    func drop(_ key: Key?) {
        state.withLock { state in
            if let key { state.pending[key] = nil } else { state.pending.removeAll() }
        }
        writing.withLock { _ in }
    }

    /// Waits until every queued write is done; returns at once when none is queued.
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isIdle = state.withLock { state in
                guard state.isDraining else { return true }
                state.waiters.append(continuation)
                return false
            }
            if isIdle { continuation.resume() }
        }
    }

    /// Waits until the write queued for `key`, if any, is done.
    func settle(_ key: Key) async {
        if pending(forKey: key) != nil { await flush() }
    }

    /// What the drain does next.
    private enum Step {
        case write(Key, UInt64, Pending)
        case skip
        case finish([CheckedContinuation<Void, Never>])
    }

    /// Runs the queued writes in order until none is left, then wakes the callers of ``flush()``.
    private func drain() {
        while true {
            let step = writing.withLock { written -> Step in
                let step = state.withLock { state -> Step in
                    guard !state.order.isEmpty else {
                        // Idle in the same critical section that finds the queue empty, so an enqueue either
                        // sees a drain running that will take its write, or starts one.
                        state.isDraining = false
                        defer { state.waiters.removeAll() }
                        return .finish(state.waiters)
                    }
                    let (key, generation) = state.order.removeFirst()
                    guard let pending = state.pending[key], pending.generation == generation else { return .skip }
                    state.running = key
                    return .write(key, generation, pending)
                }
                guard case .write(let key, let generation, let pending) = step else { return step }
                let failed = (try? pending.perform(pending.write)) == nil
                written &+= 1
                state.withLock { state in
                    if failed { state.failures += 1 }
                    state.running = nil
                    if state.pending[key]?.generation == generation { state.pending[key] = nil }
                }
                return .skip
            }
            guard case .finish(let waiters) = step else { continue }
            for waiter in waiters { waiter.resume() }
            return
        }
    }
}
