import Strata

/// The one eviction rule of the stores that keep files, for entries that cannot be removed (an immutable file, a
/// folder that refuses): the least recently used go while the store is over a limit; one that cannot be removed stays,
/// moved to the back of the line, and the next goes in its place, up to ``StrataError/maximumStuckEvictions`` of them
/// (then the pass stops rather than try every file of a folder where nothing can be removed); past one, the entry
/// just written (the most recently used when the pass began) is never evicted, so stuck entries alone over a limit do
/// not empty the store of everything else.
package enum StuckEvictions {
    /// Runs one eviction pass over `store`; the first removal that failed, if any.
    ///
    /// - Parameters:
    ///   - store: The store's state, under its lock.
    ///   - newest: The most recently used entry when the pass begins.
    ///   - isOverLimits: Whether the store is over a limit.
    ///   - leastRecentlyUsed: The least recently used entry.
    ///   - evict: Removes an entry (and reports it); throws when it cannot.
    ///   - moveToBack: Marks an entry that could not be removed as just used.
    package static func pass<Store: ~Copyable, Key: Equatable>(
        _ store: inout Store,
        newest: Key?,
        isOverLimits: (borrowing Store) -> Bool,
        leastRecentlyUsed: (inout Store) -> Key?,
        evict: (Key, inout Store) throws -> Void,
        moveToBack: (Key, inout Store) -> Void
    ) -> (any Error)? {
        var failure: (any Error)?
        var stuck = 0
        while isOverLimits(store), stuck < StrataError.maximumStuckEvictions, let oldest = leastRecentlyUsed(&store) {
            if stuck > 0, oldest == newest { break }
            do {
                try evict(oldest, &store)
            } catch {
                failure = failure ?? error
                stuck += 1
                moveToBack(oldest, &store)
            }
        }
        return failure
    }
}
