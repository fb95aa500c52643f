/// The write stamps of a repository's cache: whether a key was written through the repository since a main read
/// of it began, so that main's older answer is never written back over a newer cached value.
///
/// A fixed table of counters: one per stripe of the key space (a key's hash picks its stripe), one for the writes
/// that name no key (a listing, a tag, every entry) and one that every write moves. Memory stays the same whatever
/// the number of keys; two keys that share a stripe only make a write-back be skipped, never a stale one be stored.
///
/// A counter only grows, so the sum of a scope's counters is unchanged exactly when none of them moved.
///
/// A write moves its counters when it begins and again when it ends, and counts itself in progress in between: a
/// main read that began before the write, or during it (and may have read main before the write reached it), never
/// writes its answer back, whatever sources the write's operation writes.
///
/// A write-back checks the counters and writes the cache in one turn of its keys' stripes (``CacheWriteTurns``), and a
/// write through the repository (``recordingWrite(_:_:)``) begins only between two turns: a write that begins after
/// the check reaches the cache after the write-back, so the write-back is either skipped or overwritten, and never
/// undoes anything. A held write (``begin(_:)``) cannot wait for a turn: one that begins during a write-back's cache
/// write, a removal made directly in the cache, has the write-back remove what it stored.
///
/// Two writes of one key through the repository are not ordered: main may take them in one order and the cache in the
/// other. The second step of each (the cache write after main's, or main's after the cache's) checks, in a turn, that
/// no other write of its keys overlapped it, and drops the cache's copy when one did (``finishing(_:_:dropping:)``).
@usableFromInline
package final class CacheWriteStamps: Sendable {
    /// A table no write has moved.
    package init() {}

    /// The keys a query writes or reads, as stripes.
    enum Scope: Sendable {
        /// One key's stripe.
        case one(Int)
        /// The stripes of several keys, each once.
        case many([Int])
        /// Keys the query does not name: a listing, a tag, every entry.
        case all

        /// Whether the scope names keys.
        var isKeyed: Bool {
            if case .all = self { false } else { true }
        }
    }

    /// The counters of a scope when a main read began.
    struct Stamp: Sendable {
        /// The keys of the read.
        let scope: Scope
        /// The sum of the scope's counters then.
        let sum: UInt64
    }

    /// The counters.
    private struct Table {
        /// One counter per stripe, moved by a write of a key in it; empty (all zero) until the first keyed write,
        /// so a repository that is only read allocates none.
        var stripes: [UInt64] = []
        /// Moved by a write that names no key.
        var unkeyed: UInt64 = 0
        /// Moved by every write.
        var total: UInt64 = 0
        /// The writes in progress of each stripe; allocated with ``stripes``.
        var stripesWriting: [Int] = []
        /// The writes in progress that name no key.
        var unkeyedWriting = 0
        /// Every write in progress.
        var totalWriting = 0
        /// One counter per stripe, moved by a held write of a key in it (``CacheWriteStamps/begin(_:)``), which
        /// begins without waiting for a turn; empty until the first keyed one.
        var stripesHeld: [UInt64] = []
        /// Moved by a held write that names no key.
        var unkeyedHeld: UInt64 = 0
        /// Moved by every held write.
        var totalHeld: UInt64 = 0

        /// The sum of the counters a read of `scope` depends on.
        func sum(_ scope: Scope) -> UInt64 {
            switch scope {
            case .one(let stripe): counter(stripe) &+ unkeyed
            case .many(let indices): indices.reduce(unkeyed) { $0 &+ counter($1) }
            case .all: total
            }
        }

        /// The counter of a stripe.
        private func counter(_ stripe: Int) -> UInt64 { stripes.isEmpty ? 0 : stripes[stripe] }

        /// The sum of the held-write counters a write-back of `scope` depends on.
        func heldSum(_ scope: Scope) -> UInt64 {
            let held = { (stripe: Int) in self.stripesHeld.isEmpty ? 0 : self.stripesHeld[stripe] }
            switch scope {
            case .one(let stripe): return held(stripe) &+ unkeyedHeld
            case .many(let indices): return indices.reduce(unkeyedHeld) { $0 &+ held($1) }
            case .all: return totalHeld
            }
        }

        /// Moves the held-write counters of `scope`.
        mutating func bumpHeld(_ scope: Scope) {
            totalHeld &+= 1
            if stripesHeld.isEmpty, scope.isKeyed {
                stripesHeld = [UInt64](repeating: 0, count: CacheWriteStamps.stripeCount)
            }
            switch scope {
            case .one(let stripe): stripesHeld[stripe] &+= 1
            case .many(let indices): for stripe in indices { stripesHeld[stripe] &+= 1 }
            case .all: unkeyedHeld &+= 1
            }
        }

        /// Whether a write of keys a read of `scope` depends on is in progress.
        func isWriting(_ scope: Scope) -> Bool {
            guard totalWriting > 0 else { return false }
            switch scope {
            case .one(let stripe): return unkeyedWriting > 0 || stripesWriting[stripe] > 0
            case .many(let indices): return unkeyedWriting > 0 || indices.contains { stripesWriting[$0] > 0 }
            case .all: return true
            }
        }

        /// Moves the counters of a write of `scope`, and counts it in progress (`change` 1, when it begins) or no
        /// longer (-1, when it ends).
        mutating func bump(_ scope: Scope, writing change: Int) {
            total &+= 1
            totalWriting += change
            if stripes.isEmpty, scope.isKeyed {
                stripes = [UInt64](repeating: 0, count: CacheWriteStamps.stripeCount)
                stripesWriting = [Int](repeating: 0, count: CacheWriteStamps.stripeCount)
            }
            switch scope {
            case .one(let stripe):
                stripes[stripe] &+= 1
                stripesWriting[stripe] += change
            case .many(let indices):
                for stripe in indices {
                    stripes[stripe] &+= 1
                    stripesWriting[stripe] += change
                }
            case .all:
                unkeyed &+= 1
                unkeyedWriting += change
            }
        }
    }

    /// How many stripes the key space is cut into: 256 counters of 8 bytes per table.
    package static let stripeCount = 256

    private let table = Locked(Table())

    /// The turns of the cache writes: a write-back's, and the beginning of each write through the repository.
    private let turns = CacheWriteTurns()

    /// Returns once `count` writes and write-backs wait for their turn at once, or when the calling task is
    /// cancelled: how a test knows that a write is held behind a write-back.
    func waitForTurnWaiters(_ count: Int) async { await turns.waitForWaiters(count) }

    /// The scope of a query: its key, its keys, or all.
    static func scope(of query: any Query) -> Scope {
        if let query = query as? any KeyedQuery { return .one(stripe(query.key)) }
        if let query = query as? any MultiKeyedQuery {
            return .many(Array(Set(query.keys.map(stripe))))
        }
        return .all
    }

    /// The stripe of a key.
    private static func stripe(_ key: String) -> Int { key.stripe(among: stripeCount) }

    /// The counters of the query's keys now: taken when a main read begins, before main is asked (and, for a read
    /// that starts at the cache, after the cache missed: see ``wasEverWritten(_:)``).
    func stamp(_ query: any Query) -> Stamp {
        let scope = Self.scope(of: query)
        return Stamp(scope: scope, sum: table.withLock { $0.sum(scope) })
    }

    /// Whether any write of the stamp's keys went through the repository before it was taken: a read that took it
    /// after its cache read missed asks the cache again, since such a write may have ended while the cache was read
    /// (and a write that ends after the stamp is seen by it).
    func wasEverWritten(_ stamp: Stamp) -> Bool { stamp.sum != 0 }

    /// Runs `write`, a write of the query's keys through the repository (to main, to the cache or to both): a main
    /// read of them that began before it ends may no longer write its answer back.
    ///
    /// The write begins in a turn of its keys (``CacheWriteTurns``): after a write-back of them that is writing the
    /// cache now, so that the write reaches the cache last. A writer whose task is cancelled while it waits (behind a
    /// write-back whose cache write hangs on a stalled disk) stops waiting: it takes no turn, writes nothing, and lets
    /// the writers behind it in.
    ///
    /// - Throws: ``StrataError/Code/cancelled`` when the task was cancelled while it waited; `write`'s error.
    func recordingWrite<Result>(_ query: any Query, _ write: () async throws -> Result) async throws -> Result {
        try await recordingWrite(query) { (_: Write) in try await write() }
    }

    /// A write through the repository in progress (``recordingWrite(_:seeing:)``), as the cache write that ends it
    /// checks it (``finishing(_:_:dropping:)``).
    struct Write: Sendable {
        /// The keys written.
        let scope: Scope
        /// The sum of their counters once the write began: it moves when another write of them begins or ends.
        let sum: UInt64
        /// Whether another write of the keys was in progress when this one began.
        let metAnother: Bool
    }

    /// Runs `write` as ``recordingWrite(_:_:)`` does, handing it the write's record, for the cache write that ends it
    /// (``finishing(_:_:dropping:)``).
    func recordingWrite<Result>(
        _ query: any Query,
        seeing write: (Write) async throws -> Result
    ) async throws -> Result {
        let scope = Self.scope(of: query)
        guard await turns.take(scope) else {
            throw StrataError(
                .cancelled,
                "The write was cancelled while it waited for a write-back of its keys",
                underlying: CancellationError()
            )
        }
        let begun = table.withLock { table in
            let metAnother = table.isWriting(scope)
            table.bump(scope, writing: 1)
            return Write(scope: scope, sum: table.sum(scope), metAnother: metAnother)
        }
        turns.give(scope)
        defer { end(scope) }
        return try await write(begun)
    }

    /// Ends `write` after main took it, in a turn of its keys: runs `store` (the cache write of main's answer, or
    /// nothing when the cache was written first) when no other write of those keys overlapped it — none was in
    /// progress when it began, none began since — and `drop` (the cache's copy removed) when one did, for main may
    /// have taken the two in either order, and the next read must ask it which it holds.
    ///
    /// Check and cache write are one turn, as a write-back's are: a write of the keys that begins after the check
    /// reaches the cache after `store`. A task cancelled while it waits for the turn runs `drop` without it. A held
    /// write (``begin(_:)``) that begins during `store` has `drop` run after it, as a write-back's
    /// `removingCopy` is. A write that names no key (a listing, a tag) runs `store` as it is: there is no copy of its
    /// keys to drop.
    func finishing<Result>(
        _ write: Write,
        _ store: () async throws -> Result,
        dropping drop: () async throws -> Result
    ) async throws -> Result {
        guard write.scope.isKeyed else { return try await store() }
        guard await turns.take(write.scope) else { return try await drop() }
        defer { turns.give(write.scope) }
        let held = table.withLock { table -> UInt64? in
            guard !write.metAnother, table.sum(write.scope) == write.sum else { return nil }
            return table.heldSum(write.scope)
        }
        guard let held else { return try await drop() }
        let result = try await store()
        if table.withLock({ $0.heldSum(write.scope) }) != held { _ = try await drop() }
        return result
    }

    /// Begins a held write of the query's keys, counted in progress until ``end(_:)`` is called with the scope
    /// returned: a write whose start and end are not one call's (``recordingWrite(_:_:)`` is), and that cannot wait
    /// for a turn. A write-back writing the cache when it begins removes what it stored (see
    /// ``writingBack(since:_:removingCopy:)``).
    func begin(_ query: any Query) -> Scope {
        let scope = Self.scope(of: query)
        table.withLock {
            $0.bump(scope, writing: 1)
            $0.bumpHeld(scope)
        }
        return scope
    }

    /// Ends a write ``begin(_:)`` or ``recordingWrite(_:_:)`` began.
    func end(_ scope: Scope) {
        table.withLock { $0.bump(scope, writing: -1) }
    }

    /// Writes main's answer to a read that began at `stamp` into the cache with `write`, in a turn of its keys, only
    /// when no write of its keys went through the repository since the stamp was taken, and none is in progress;
    /// `nil` when the write-back was skipped (main's answer is then not stored, and the cache keeps what the write
    /// left), or when the caller's task was cancelled while it waited for the turn.
    ///
    /// The check and the cache write are one turn: a write through the repository that begins after the check
    /// reaches the cache after `write`, so nothing it stores is ever undone. A held write (``begin(_:)``) that begins
    /// during `write` cannot wait: `removingCopy` removes what `write` stored, before the turn ends.
    ///
    /// A write-back is not a write here: two main reads of a key that race both write back, the last to finish
    /// last, as they always did; only a value written through the repository is never replaced by an answer
    /// older than it.
    func writingBack<Result>(
        since stamp: Stamp,
        _ write: () async throws -> Result,
        removingCopy: () async -> Void
    ) async throws -> Result? {
        guard await turns.take(stamp.scope) else { return nil }
        defer { turns.give(stamp.scope) }
        let held = table.withLock { table -> UInt64? in
            guard table.sum(stamp.scope) == stamp.sum, !table.isWriting(stamp.scope) else { return nil }
            return table.heldSum(stamp.scope)
        }
        guard let held else { return nil }
        let result = try await write()
        if table.withLock({ $0.heldSum(stamp.scope) }) != held { await removingCopy() }
        return result
    }
}
