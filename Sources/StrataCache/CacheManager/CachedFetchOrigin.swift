/// Where a ``CachedFetchResult`` came from.
public enum CachedFetchOrigin: Hashable, Sendable {
    /// A valid cached reference; no request was made.
    case cache
    /// A stale reference the server confirmed with `304 Not Modified`.
    case revalidated
    /// A new response (2xx).
    case network
}
