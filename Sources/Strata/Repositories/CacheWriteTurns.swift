/// The turns of a repository's cache writes: a write-back holds the stripes of its keys from its check to the end of
/// its cache write, and a write of those keys through the repository begins only between two such turns.
///
/// A write-back that checked "no write since my read began" then writes the cache before any write that begins after
/// the check reaches it: the later write lands last, and the write-back never has to undo what it stored (which
/// would delete what the later write stored, when the two landed the other way round).
///
/// A fixed table: one flag per stripe of the key space (``CacheWriteStamps/stripeCount``) and one for "every key",
/// plus the callers waiting, each once, in the order they came (a turn is given to the first waiter whose stripes are
/// free and that no earlier waiter's stripes overlap: a stream of write-backs cannot starve a write). A turn is only
/// held across one cache write; nothing is allocated while no turn is held.
final class CacheWriteTurns: Sendable {
    /// How a waiting caller is told whether it got its turn.
    private typealias Resumption = CheckedContinuation<Bool, Never>

    /// A caller waiting for its turn.
    private struct Waiter {
        let id: UInt64
        let scope: CacheWriteStamps.Scope
        let continuation: Resumption
    }

    /// The turns held and waited for.
    private struct State {
        /// Whether each stripe's turn is held; empty until the first keyed turn.
        var taken: [Bool] = []
        /// How many stripes' turns are held.
        var takenCount = 0
        /// Whether the turn of every key (a listing, a tag) is held.
        var isAllTaken = false
        /// The callers waiting, oldest first.
        var waiters: [Waiter] = []
        /// The id of the last waiter.
        var lastWaiter: UInt64 = 0
        /// The callers of ``CacheWriteTurns/waitForWaiters(_:)``: how many waiters each waits for.
        var watchers: [UInt64: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]

        /// Appends a waiter; returns the watchers it satisfies, removed.
        mutating func append(_ waiter: Waiter) -> [CheckedContinuation<Void, Never>] {
            waiters.append(waiter)
            guard !watchers.isEmpty else { return [] }
            let satisfied = watchers.filter { $0.value.count <= waiters.count }
            for id in satisfied.keys { watchers[id] = nil }
            return satisfied.values.map(\.continuation)
        }

        /// Whether no turn `scope` needs is held.
        func isFree(_ scope: CacheWriteStamps.Scope) -> Bool {
            guard !isAllTaken else { return false }
            switch scope {
            case .one(let stripe): return taken.isEmpty || !taken[stripe]
            case .many(let stripes): return taken.isEmpty || !stripes.contains { taken[$0] }
            case .all: return takenCount == 0
            }
        }

        /// Takes the turns of `scope`.
        mutating func take(_ scope: CacheWriteStamps.Scope) {
            if taken.isEmpty, scope.isKeyed {
                taken = [Bool](repeating: false, count: CacheWriteStamps.stripeCount)
            }
            switch scope {
            case .one(let stripe): mark(stripe, true)
            case .many(let stripes): for stripe in stripes { mark(stripe, true) }
            case .all: isAllTaken = true
            }
        }

        /// Gives back the turns of `scope`.
        mutating func give(_ scope: CacheWriteStamps.Scope) {
            switch scope {
            case .one(let stripe): mark(stripe, false)
            case .many(let stripes): for stripe in stripes { mark(stripe, false) }
            case .all: isAllTaken = false
            }
        }

        private mutating func mark(_ stripe: Int, _ isTaken: Bool) {
            taken[stripe] = isTaken
            takenCount += isTaken ? 1 : -1
        }

        /// Takes the turns of `scope` when they are free and no waiter that came first wants one of them.
        mutating func takeIfFree(_ scope: CacheWriteStamps.Scope) -> Bool {
            guard isFree(scope), !waiters.contains(where: { $0.scope.overlaps(scope) }) else { return false }
            take(scope)
            return true
        }

        /// Gives the waiters, oldest first, the turns that are free now: each one whose stripes are free and that no
        /// waiter before it (still waiting) overlaps; returns the continuations to resume.
        mutating func admitWaiters() -> [Resumption] {
            var admitted: [Resumption] = []
            var waiting: [Waiter] = []
            for waiter in waiters {
                if isFree(waiter.scope), !waiting.contains(where: { $0.scope.overlaps(waiter.scope) }) {
                    take(waiter.scope)
                    admitted.append(waiter.continuation)
                } else {
                    waiting.append(waiter)
                }
            }
            waiters = waiting
            return admitted
        }
    }

    private let state = Locked(State())

    /// Waits for the turns of `scope` and takes them; ``give(_:)`` gives them back.
    ///
    /// A free turn is taken without suspending.
    ///
    /// A caller whose task is cancelled while it waits stops waiting: it takes nothing, and the waiters it held back
    /// (by coming first) take the turns that are free. A turn held by a cache write that hangs (a stalled disk)
    /// never holds a cancelled caller.
    ///
    /// - Parameter scope: The stripes.
    /// - Returns: Whether the turns were taken: `false` when the task was cancelled while it waited.
    func take(_ scope: CacheWriteStamps.Scope) async -> Bool {
        if state.withLock({ $0.takeIfFree(scope) }) { return true }
        let id = state.withLock { state -> UInt64 in
            state.lastWaiter &+= 1
            return state.lastWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Resumption) in
                let (taken, watchers) = state.withLock { state -> (Bool?, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (false, []) }
                    if state.takeIfFree(scope) { return (true, []) }
                    return (nil, state.append(Waiter(id: id, scope: scope, continuation: continuation)))
                }
                if let taken { continuation.resume(returning: taken) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let left = state.withLock { state -> (Resumption?, [Resumption]) in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return (nil, []) }
                let waiter = state.waiters.remove(at: index)
                // A waiter behind it may have been held only by it.
                return (waiter.continuation, state.admitWaiters())
            }
            left.0?.resume(returning: false)
            for continuation in left.1 { continuation.resume(returning: true) }
        }
    }

    /// Returns once `count` callers wait for a turn at once, or when the calling task is cancelled: how a test knows
    /// that a write is held behind a write-back.
    func waitForWaiters(_ count: Int) async {
        await state.suspend(numbering: \.lastWaiter) { state, id, continuation in
            guard state.waiters.count < count else { return false }
            state.watchers[id] = (count, continuation)
            return true
        } removing: { state, id in
            state.watchers.removeValue(forKey: id)?.continuation
        }
    }

    /// Gives back the turns ``take(_:)`` took, and lets the waiters they held take theirs.
    func give(_ scope: CacheWriteStamps.Scope) {
        let admitted = state.withLock { state in
            state.give(scope)
            return state.waiters.isEmpty ? [] : state.admitWaiters()
        }
        for continuation in admitted { continuation.resume(returning: true) }
    }
}

extension CacheWriteStamps.Scope {
    /// Whether two scopes share a stripe (every scope shares one with `.all`).
    func overlaps(_ other: Self) -> Bool {
        switch (self, other) {
        case (.all, _), (_, .all): true
        case (.one(let a), .one(let b)): a == b
        case (.one(let a), .many(let b)), (.many(let b), .one(let a)): b.contains(a)
        case (.many(let a), .many(let b)): a.contains { b.contains($0) }
        }
    }
}
