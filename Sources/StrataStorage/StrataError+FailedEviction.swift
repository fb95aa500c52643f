import Strata

extension StrataError {
    /// The report a store makes when it cannot remove an entry to come within its count or size limit, after a
    /// write or as it opens: the write stands (its value is stored) and the store opens, over its limits until a
    /// later write's eviction succeeds.
    ///
    /// - Parameters:
    ///   - store: The store's type name ("FileDataSource").
    ///   - failure: What stopped the eviction.
    package static func failedEviction(by store: String, _ failure: any Error) -> StrataError {
        let cause = (failure as? StrataError)?.message ?? String(describing: failure)
        return StrataError(
            .io,
            "\(store) is over its limits and could not evict down to them; the next write tries again: \(cause)",
            underlying: failure
        )
    }
}
