import Strata

/// Keeps a copy read from a slower layer (a disk) out of a faster one (memory) once that layer was written or cleared
/// since the read began: a removal, or a newer value, is never undone by a read that was already under way.
///
/// Take a ``mark()`` before reading, make every write and removal of the faster layer through ``write(_:)``, and put
/// the copy back through ``putBack(readAt:_:)``: it runs only when nothing went through ``write(_:)`` since the mark.
final class PutBackGuard: Sendable {
    /// How many writes went through ``write(_:)``: read without a lock, for the mark a hit path takes.
    private let writes = AtomicCount()
    /// Held while a write or a put-back runs. (Not a `Locked<Void>`: ThreadSanitizer reports accesses to a zero-sized
    /// state under the lock as racing.)
    private let lock = Locked(0)

    /// The mark to take before a read whose result may be put back.
    func mark() -> Int { writes.value }

    /// Runs a write or removal of the faster layer, and counts it.
    func write(_ body: () -> Void) {
        lock.withLock { _ in
            writes.add(1)
            body()
        }
    }

    /// Runs `body` (putting a copy back) unless a write went through since `mark`; returns whether it ran.
    @discardableResult
    func putBack(readAt mark: Int, _ body: () -> Void) -> Bool {
        lock.withLock { _ in
            guard writes.value == mark else { return false }
            body()
            return true
        }
    }
}
