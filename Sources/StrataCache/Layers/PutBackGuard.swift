import Strata

/// Keeps a copy read from a slower layer (a disk, the network) out of a faster one (memory, a disk) once that layer was
/// written or cleared since the read began: a removal, or a newer value, is never undone by a read that was already
/// under way.
///
/// Take a ``mark(_:)`` before reading, make every write and removal of the faster layer through ``write(_:_:)``, and put
/// the copy back through ``putBack(readAt:_:_:)``: it runs only when nothing went through ``write(_:_:)`` since the
/// mark — for a key's mark, no write of a key in its stripe and no write of every key, so that a removal of one key
/// does not keep out the reads of the others.
final class PutBackGuard: Sendable {
    /// How many writes went through ``write(_:_:)``: read without a lock, for the mark a hit path takes.
    private let writes = AtomicCount()
    /// How many writes of every key went through (a key of `nil`).
    private let unkeyedWrites = AtomicCount()
    /// How many writes of a key went through, by the key's stripe.
    private let keyedWrites = (0..<PutBackGuard.stripeCount).map { _ in AtomicCount() }
    /// Held while a write or a put-back runs. (Not a `Locked<Void>`: ThreadSanitizer reports accesses to a zero-sized
    /// state under the lock as racing.)
    private let lock = Locked(0)

    /// How many stripes the keys are cut into: two keys that share one only keep each other's reads out more often.
    private static let stripeCount = 64

    /// The mark to take before a read whose result may be put back: of every write, or of the writes that concern
    /// `key`.
    func mark(_ key: String? = nil) -> Int {
        guard let key else { return writes.value }
        return unkeyedWrites.value &+ keyedWrites[Self.stripe(key)].value
    }

    /// Runs a write or removal of the faster layer — of `key`, or of every key for `nil` — and counts it once done.
    ///
    /// Counted after it, under the lock: a mark taken while it runs is of the count before it, so a copy read then
    /// (before the write reached the slower layer) is not put back over it. Counted before it, such a mark already
    /// counted the write, and a reader that missed the faster layer and read the slower one's older copy put that
    /// copy back over the write once it ended.
    func write(_ key: String? = nil, _ body: () -> Void) {
        lock.withLock { _ in
            body()
            writes.add(1)
            if let key { keyedWrites[Self.stripe(key)].add(1) } else { unkeyedWrites.add(1) }
        }
    }

    /// Runs `body` (putting a copy back) unless a write went through since `mark`, taken with the same `key`; returns
    /// whether it ran.
    @discardableResult
    func putBack(readAt mark: Int, _ key: String? = nil, _ body: () -> Void) -> Bool {
        lock.withLock { _ in
            guard self.mark(key) == mark else { return false }
            body()
            return true
        }
    }

    /// Whether a write that concerns `key` went through since `mark`, taken with the same `key`.
    func moved(since mark: Int, _ key: String? = nil) -> Bool {
        self.mark(key) != mark
    }

    /// The stripe of a key.
    static func stripe(_ key: String) -> Int { key.stripe(among: stripeCount) }
}
