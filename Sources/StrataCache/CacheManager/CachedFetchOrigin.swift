import Strata

/// Where a ``CachedFetchResult`` came from.
@available(*, deprecated, message: "Use Strata's DataOrigin: .cache, .revalidated or .network")
public enum CachedFetchOrigin: Hashable, Sendable {
    /// A valid cached reference; no request was made.
    case cache
    /// A stale reference the server confirmed with `304 Not Modified`.
    case revalidated
    /// A new response (2xx).
    case network

    /// The same origin as a `DataOrigin`.
    public var dataOrigin: DataOrigin {
        switch self {
        case .cache: .cache
        case .revalidated: .revalidated
        case .network: .network
        }
    }
}
