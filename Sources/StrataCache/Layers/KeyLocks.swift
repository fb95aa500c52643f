import Strata

/// Locks cut by key: a write that spans two layers (memory then disk, a move then a checkout) runs under its key's,
/// so two writes of one key never interleave, while writes of keys of other stripes run side by side.
///
/// Memory stays the same whatever the number of keys; two keys that share a stripe only wait for each other. The
/// locks are not reentrant: a body must not take the lock of a key again (nor call code that may, such as a
/// diagnostics closure: hold its reports back with `HeldReports` until the lock is released).
final class KeyLocks: Sendable {
    /// One lock per stripe. (Not `Locked<Void>`: ThreadSanitizer reports accesses to a zero-sized state as racing.)
    private let stripes: [Locked<Int>]

    /// How many callers found their stripe's lock held and waited for it.
    private let waits = AtomicCount()

    /// Creates `count` locks.
    ///
    /// - Parameter count: How many stripes the keys are cut into; more than zero.
    init(stripes count: Int) {
        stripes = (0..<count).map { _ in Locked(0) }
    }

    /// Runs `body` under the lock of `key`'s stripe.
    func withLock<Result>(_ key: String, _ body: () throws -> Result) rethrows -> Result {
        try stripes[key.stripe(among: stripes.count)].withLock(countingWaits: { waits.add(1) }) { _ in try body() }
    }

    /// Tests only: how many callers of ``withLock(_:_:)`` found their stripe's lock held and waited for it, so far: a
    /// test waits for a write to be held behind another's, rather than give it time to get there.
    var waitCount: Int { waits.value }
}
