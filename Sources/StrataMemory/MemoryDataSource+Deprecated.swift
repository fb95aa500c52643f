import Strata

extension MemoryDataSource {
    /// Trims the source to a share of its limits.
    ///
    /// - Parameter fraction: The share of the limits to keep, from 0 to 1.
    @available(*, deprecated, renamed: "trim(keeping:)")
    public func purge(keeping fraction: Double = 0) {
        trim(keeping: fraction)
    }
}
