import Strata

extension StrataError {
    /// The report a store makes when it cannot remove an entry it evicts to come within its count or size limit,
    /// after a write or as it opens: the write stands (its value is stored) and the store opens. The store evicts
    /// newer entries in the stuck one's place (up to ``maximumStuckEvictions`` stuck entries per eviction), so it is
    /// over its limits only when too many cannot be removed, until a later write's eviction succeeds.
    ///
    /// - Parameters:
    ///   - store: The store's type name ("FileDataSource").
    ///   - failure: The first removal that failed.
    ///   - overLimits: Whether the store is still over a limit.
    package static func failedEviction(by store: String, _ failure: any Error, overLimits: Bool) -> StrataError {
        let cause = (failure as? StrataError)?.message ?? String(describing: failure)
        let outcome =
            overLimits
            ? "is over its limits and could not evict down to them; the next write tries again"
            : "could not remove an entry it evicts, and evicted newer ones in its place; the next eviction tries again"
        return StrataError(.io, "\(store) \(outcome): \(cause)", underlying: failure)
    }

    /// How many entries that cannot be removed one eviction passes over, evicting newer ones in their place, before
    /// it stops: enough for a few stuck files, few enough that a folder where nothing can be removed (a read-only
    /// file system) costs a write a bounded number of failed calls.
    package static let maximumStuckEvictions = 8
}
