import Strata

extension DataOrigin {
    /// A stored copy the server confirmed with `304 Not Modified`: no body was transferred, and the copy's
    /// metadata was renewed, not rewritten.
    public static let revalidated = DataOrigin("revalidated")

    /// A stale stored copy served because the network failed (serve-stale-on-error).
    public static let stale = DataOrigin("stale")
}
