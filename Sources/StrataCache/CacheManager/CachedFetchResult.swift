/// What ``CachedFetcher/fetch(_:identifier:)`` returns: the reference and where it came from.
public struct CachedFetchResult: Hashable, Sendable {
    /// The reference now cached (or, for a `no-store` response, the one received).
    public var reference: CacheReference

    /// Whether the server was called, and what it answered.
    public var origin: CachedFetchOrigin

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - reference: The reference.
    ///   - origin: Where it came from.
    public init(reference: CacheReference, origin: CachedFetchOrigin) {
        self.reference = reference
        self.origin = origin
    }
}
