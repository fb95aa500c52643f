import CStrataAtomics

/// A word that many threads add to without a lock: how many calls a chain has seen, how many call trails are bound.
///
/// Relaxed: it orders nothing else. It fits a count that decides whether to look further or to sample; a count that
/// keeps a stale copy out (`PutBackGuard`, `CacheManager`'s clears and stale marks) is sound only because every change
/// it counts is made under a lock, and counted after it, and the check that reads it is made under that lock too.
/// A count taken before the change it counts lets a reader's mark include a change not made yet.
package final class AtomicCount: @unchecked Sendable {
    // @unchecked Sendable is sound: `word` is only read and written by the atomic operations below.
    private let word: UnsafeMutablePointer<Int>

    /// Creates a count at `initial`.
    package init(_ initial: Int = 0) {
        word = .allocate(capacity: 1)
        word.initialize(to: initial)
    }

    deinit {
        word.deallocate()
    }

    /// The count now.
    package var value: Int { strata_atomic_load_relaxed(word) }

    /// Adds one and returns the count before, where an increment made by two threads at once may be counted once:
    /// for choosing the calls to sample, not for a count anyone reads as exact.
    package func tick() -> Int {
        strata_atomic_tick_relaxed(word)
    }

    /// Adds `delta` (wrapping) and returns the count before.
    @discardableResult
    package func add(_ delta: Int) -> Int {
        strata_atomic_fetch_add_relaxed(word, delta)
    }
}
