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
final class CacheWriteStamps: Sendable {
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

    /// How many stripes the key space is cut into: 256 counters of 8 bytes per repository.
    static let stripeCount = 256

    private let table = Locked(Table())

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

    /// The counters of the query's keys now: taken when a main read begins.
    func stamp(_ query: any Query) -> Stamp {
        let scope = Self.scope(of: query)
        return Stamp(scope: scope, sum: table.withLock { $0.sum(scope) })
    }

    /// Runs `write`, a write of the query's keys through the repository (to main, to the cache or to both): a main
    /// read of them that began before it ends may no longer write its answer back.
    func recordingWrite<Result>(_ query: any Query, _ write: () async throws -> Result) async rethrows -> Result {
        let scope = begin(query)
        defer { end(scope) }
        return try await write()
    }

    /// Begins a write of the query's keys, counted in progress until ``end(_:)`` is called with the scope returned:
    /// a write whose start and end are not one call's (``recordingWrite(_:_:)`` is).
    func begin(_ query: any Query) -> Scope {
        let scope = Self.scope(of: query)
        table.withLock { $0.bump(scope, writing: 1) }
        return scope
    }

    /// Ends a write ``begin(_:)`` began.
    func end(_ scope: Scope) {
        table.withLock { $0.bump(scope, writing: -1) }
    }

    /// Whether main's answer to a read that began at `stamp` may be written into the cache: only when no write of
    /// its keys went through the repository since, and none is in progress.
    ///
    /// A write-back is not a write here: two main reads of a key that race both write back, the last to finish
    /// last, as they always did; only a value written through the repository is never replaced by an answer
    /// older than it.
    func mayWriteBack(since stamp: Stamp) -> Bool {
        table.withLock { $0.sum(stamp.scope) == stamp.sum && !$0.isWriting(stamp.scope) }
    }
}
