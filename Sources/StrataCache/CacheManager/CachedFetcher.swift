import Foundation
import Strata
import StrataNetwork

/// Fetches through a ``CacheManagerProtocol`` as Beagle's network layer does: a valid reference answers
/// alone; a stale one is revalidated by sending its hash, and a `304 Not Modified` keeps it.
///
/// ```swift
/// let fetcher = cacheManager.fetcher()
/// let screen = try await fetcher.fetch(url: screenURL)
/// print(screen.origin)   // .cache, .revalidated or .network
/// render(screen.reference.data)
/// ```
///
/// - A valid reference (``CacheManagerProtocol/isValid(reference:)``) answers without a request.
/// - A stale reference's ``CacheReference/hash`` is sent in ``hashHeader`` (`If-None-Match` by default;
///   Beagle's own backend reads `beagle-hash`). A 304 stores the reference again with a new time of creation
///   (and the 304's `max-age`, if any).
/// - A 2xx response replaces the reference: its hash is the `ETag`, or a 128-bit FNV-1a hash of the body
///   when there is none; its maxAge is how long the response stays fresh once received, from StrataNetwork's
///   `HTTPFreshness` for a private cache (`max-age`, then `Expires` − `Date`, less the response's age;
///   `no-cache` makes it 0 so the next fetch revalidates), or `nil` for the manager's default.
///   A `no-store` response is returned but not cached.
public struct CachedFetcher: Sendable {
    /// The cache consulted and filled.
    public var cacheManager: any CacheManagerProtocol

    /// The client that sends requests.
    public var client: HTTPClient

    /// The request header that carries a stale reference's hash.
    public var hashHeader: String

    /// The clock for times of creation.
    public var clock: any WallClock

    /// Creates a fetcher.
    ///
    /// - Parameters:
    ///   - cacheManager: The cache.
    ///   - client: The HTTP client.
    ///   - hashHeader: The request header for a stale reference's hash.
    ///   - clock: The clock for times of creation (use the cache's).
    public init(
        cacheManager: any CacheManagerProtocol,
        client: HTTPClient = HTTPClient(),
        hashHeader: String = "If-None-Match",
        clock: any WallClock = SystemClock()
    ) {
        self.cacheManager = cacheManager
        self.client = client
        self.hashHeader = hashHeader
        self.clock = clock
    }

    /// GETs `url` through the cache; the reference's identifier is the URL.
    ///
    /// - Parameter url: The URL.
    /// - Returns: The reference and where it came from.
    /// - Throws: The ``Strata/StrataError`` of the request (network, status).
    public func fetch(url: URL) async throws -> CachedFetchResult {
        try await fetch(HTTPRequest(.get, url: url), identifier: url.absoluteString)
    }

    /// Sends `request` through the cache.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - identifier: The reference's identifier; the request's `HTTPRequest/cacheKey` when `nil`.
    /// - Returns: The reference and where it came from.
    /// - Throws: The ``Strata/StrataError`` of the request (network, status); a 304 when no reference is
    ///   cached is thrown as is.
    public func fetch(_ request: HTTPRequest, identifier: String? = nil) async throws -> CachedFetchResult {
        let identifier = identifier ?? request.cacheKey
        // A CacheRepository per fetch: the manager's references, valid as the manager says, over the server.
        let source = ReferenceSource(
            request: request,
            identifier: identifier,
            client: client,
            hashHeader: hashHeader,
            clock: clock
        )
        let store = ReferenceStore(manager: cacheManager)
        let repository = CacheRepository(
            main: source,
            cache: store.validated(by: ReferenceValidator(manager: cacheManager)),
            configuration: .init(coalescesMainReads: false)
        )
        let entry = try await repository.getEntry(KeyQuery(identifier), operation: CacheSyncOperation())
        let origin = source.origin.withLock { $0 }
        // After a 304 the repository answers the stale reference with the renewed metadata, as stored.
        let reference = origin == .revalidated ? entry.value.renewed(by: entry.metadata) : entry.value
        return CachedFetchResult(reference: reference, origin: origin)
    }
}
