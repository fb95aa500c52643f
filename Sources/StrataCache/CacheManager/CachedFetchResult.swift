import Strata

/// What ``CachedFetcher/fetch(_:identifier:)`` returns: the reference and where it came from.
public struct CachedFetchResult: Hashable, Sendable {
    /// The reference now cached (or, for a response not stored — `no-store`, a range, a method other than GET — the
    /// one received).
    public var reference: CacheReference

    /// Whether the server was called, and what it answered: `.cache` (a valid reference, no request),
    /// `.revalidated` (a `304`) or `.network` (a 2xx).
    public var origin: DataOrigin

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - reference: The reference.
    ///   - origin: Where it came from.
    public init(reference: CacheReference, origin: DataOrigin) {
        self.reference = reference
        self.origin = origin
    }

    /// Creates a result from an origin of the earlier type.
    ///
    /// - Parameters:
    ///   - reference: The reference.
    ///   - origin: Where it came from.
    @available(*, deprecated, message: "Pass a DataOrigin")
    @_disfavoredOverload
    public init(reference: CacheReference, origin: CachedFetchOrigin) {
        self.init(reference: reference, origin: origin.dataOrigin)
    }
}
