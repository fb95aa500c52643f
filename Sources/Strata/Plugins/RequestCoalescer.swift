/// Shares one run of an operation among every concurrent caller that asks for the same key.
///
/// The first caller for a key starts the operation in an unstructured task owned by the coalescer, which runs
/// on that caller's thread up to its first suspension where the runtime has `Task.immediate` (Linux; Apple's systems
/// from version 26: no hand-off to another thread before the work begins; elsewhere the task is queued); callers
/// that arrive while it runs wait for the same outcome, value or error. When it finishes, the key
/// is free again: the next caller starts a new run. Nothing is cached.
///
/// A waiter that is cancelled stops waiting (it throws ``StrataError/Code/cancelled``); the shared work
/// goes on for the others, and by default finishes even when every waiter has left, so that its side effects (a
/// cache write, for example) are not lost halfway. Made with `cancelsAbandonedRuns`, a coalescer cancels a run once
/// its last waiter has left instead (a request nobody waits for any more), and the next caller starts a new one.
///
/// ```swift
/// let downloads = RequestCoalescer<URL, Data>()
/// // 100 concurrent calls for one URL make one request:
/// let data = try await downloads.run(key: url) { try await fetch(url) }
/// ```
public final class RequestCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// A caller waiting for the shared run's answer (its value or error, whether a source marked it stale, and the
    /// steps its sources added to a ``CallTrail``), which it takes in its own task; it throws only when the caller
    /// stops waiting.
    private typealias Waiter = CheckedContinuation<SharedAnswer<Value>, any Error>

    /// The run of one key and the callers waiting for it.
    private struct Group {
        /// The run's number: a run that ends after the group was abandoned finds another group, or none.
        let run: UInt64
        var waiters: [UInt64: Waiter]
        /// The run's task, once its starter has it (``cancelsAbandonedRuns`` only).
        var task: Task<Void, Never>?
    }

    private struct State {
        var groups: [Key: Group] = [:]
        var nextWaiter: UInt64 = 0
        /// The runs whose last waiter left before their starter had their task: cancelled as soon as it has.
        var abandoned: Set<UInt64> = []
    }

    private let state = Locked(State())

    /// How many runs have finished, for all keys.
    private let finished = AtomicCount()

    /// Whether a run is cancelled once its last waiter has left.
    public let cancelsAbandonedRuns: Bool

    /// Creates a coalescer with nothing in flight.
    ///
    /// - Parameter cancelsAbandonedRuns: Whether a run is cancelled once every caller waiting for it has left (been
    ///   cancelled); `false` by default: it finishes for its side effects.
    public init(cancelsAbandonedRuns: Bool = false) {
        self.cancelsAbandonedRuns = cancelsAbandonedRuns
    }

    /// The number of keys whose operation is running now (an abandoned run, cancelled, no longer counts).
    public var inFlightCount: Int { state.withLock { $0.groups.count } }

    /// The number of callers waiting, for all keys.
    public var waiterCount: Int { state.withLock { $0.groups.values.reduce(0) { $0 + $1.waiters.count } } }

    /// How many runs have finished so far, for all keys: a caller that reads it before it looks for a value, and
    /// finds it moved when its own run starts, knows that a run which may have stored that value ended meanwhile.
    package var finishedRunCount: Int { finished.value }

    /// The number of callers waiting for the operation of `key`.
    ///
    /// - Parameter key: The key.
    public func waiterCount(for key: Key) -> Int { state.withLock { $0.groups[key]?.waiters.count ?? 0 } }

    /// Returns the outcome of `operation`, run once for all the concurrent callers with an equal `key`.
    ///
    /// - Parameters:
    ///   - key: What identifies identical requests.
    ///   - operation: The work; it runs only when no run for `key` is in flight, in a task of its own. That task
    ///     inherits the priority and task-local values of the caller that starts it, except Strata's own: it is
    ///     not a stream's re-read, and a stale answer it gets, and the steps its sources add to a ``CallTrail``,
    ///     are reported to every caller.
    /// - Returns: The operation's value.
    /// - Throws: The operation's error, to every waiter; ``StrataError/Code/cancelled`` to a waiter whose
    ///   task is cancelled while it waits.
    public func run(key: Key, operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await join(key, operation).answer.take()
    }

    /// Returns the outcome of `operation`, run once for all the concurrent callers with an equal `key`, as
    /// ``run(key:operation:)`` does — but a value `isShared` refuses goes only to the caller whose call started the
    /// run: each caller that joined it runs `operation` itself, in its own task, unshared.
    ///
    /// What a caller may not hand to another (an answer to one user's credentials, in a cache shared by many users)
    /// is known only once it comes: the callers wait for it as for any value, and those it is not for ask again.
    ///
    /// - Parameters:
    ///   - key: What identifies identical requests.
    ///   - isShared: Whether a value may go to a caller that joined the run; called once per joining caller.
    ///   - operation: The work.
    /// - Returns: The operation's value: the shared run's, or for a caller that joined a run whose value
    ///   `isShared` refused, its own run's.
    /// - Throws: As ``run(key:operation:)``; a caller that runs `operation` itself, its error.
    package func run(
        key: Key,
        sharingOnly isShared: @Sendable (Value) -> Bool,
        operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let (answer, started) = try await join(key, operation)
        if !started, case .success(let value) = answer.result, !isShared(value) {
            return try await operation()
        }
        return try answer.take()
    }

    /// Waits for the answer of the run for `key`, starting it when none is in flight; whether this caller started it.
    private func join(
        _ key: Key,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> (answer: SharedAnswer<Value>, started: Bool) {
        var started = false
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        let answer = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                // The number of the run this caller starts; `nil` when it joins one, or is cancelled.
                let starts: (run: UInt64?, isCancelled: Bool) = state.withLock { state in
                    if Task.isCancelled { return (nil, true) }
                    if let group = state.groups.index(forKey: key) {
                        state.groups.values[group].waiters[id] = waiter
                        return (nil, false)
                    }
                    state.nextWaiter &+= 1
                    state.groups[key] = Group(run: state.nextWaiter, waiters: [id: waiter])
                    return (state.nextWaiter, false)
                }
                if starts.isCancelled { return waiter.resume(throwing: Self.cancelled()) }
                guard let run = starts.run else { return }
                started = true
                // The run belongs to no one caller's call: each caller takes its answer in its own task
                let task = CallContext.startShared { starter in
                    self.finish(key, run: run, with: await SharedAnswer.of(for: starter, operation))
                }
                if cancelsAbandonedRuns { adopt(task, of: run, key: key) }
            }
        } onCancel: {
            leave(key, waiter: id)?.resume(throwing: Self.cancelled())
        }
        return (answer, started)
    }

    /// Keeps the task of `run`, so that the run can be cancelled once abandoned; cancels it now when it already was.
    private func adopt(_ task: Task<Void, Never>, of run: UInt64, key: Key) {
        let isAbandoned = state.withLock { state -> Bool in
            if state.groups[key]?.run == run {
                state.groups[key]?.task = task
                return false
            }
            // Abandoned, or already finished (`finish` forgets an abandoned run too).
            return state.abandoned.remove(run) != nil
        }
        if isAbandoned { task.cancel() }
    }

    /// Takes the waiter `id` of `key`'s run out of its group; with ``cancelsAbandonedRuns``, the last one to leave
    /// cancels the run, and the key is free for a new one.
    private func leave(_ key: Key, waiter id: UInt64) -> Waiter? {
        let (waiter, abandonedTask) = state.withLock { state -> (Waiter?, Task<Void, Never>?) in
            guard let waiter = state.groups[key]?.waiters.removeValue(forKey: id) else { return (nil, nil) }
            guard cancelsAbandonedRuns, let group = state.groups[key], group.waiters.isEmpty else {
                return (waiter, nil)
            }
            state.groups[key] = nil
            if group.task == nil { state.abandoned.insert(group.run) }
            return (waiter, group.task)
        }
        abandonedTask?.cancel()
        return waiter
    }

    private func finish(_ key: Key, run: UInt64, with answer: SharedAnswer<Value>) {
        let waiters = state.withLock { state -> [UInt64: Waiter] in
            state.abandoned.remove(run)
            guard state.groups[key]?.run == run else { return [:] }
            return state.groups.removeValue(forKey: key)?.waiters ?? [:]
        }
        finished.add(1)
        for waiter in waiters.values { waiter.resume(returning: answer) }
    }

    private static func cancelled() -> StrataError {
        StrataError(.cancelled, "The caller stopped waiting for a shared request", underlying: CancellationError())
    }
}
