import Foundation
import Strata
import StrataNetwork

/// Fetches through a ``CacheManagerProtocol`` as Beagle's network layer does: a valid reference answers
/// alone; a stale one is revalidated by sending its hash, and a `304 Not Modified` keeps it.
///
/// ```swift
/// let fetcher = cacheManager.fetcher()
/// let screen = try await fetcher.fetch(url: homeURL)
/// print(screen.origin)   // .cache, .revalidated or .network
/// render(screen.reference.data)
/// ```
///
/// - A valid reference (``CacheManagerProtocol/isValid(reference:)``) answers without a request.
/// - A stale reference's ``CacheReference/hash`` is sent in ``hashHeader`` (`If-None-Match` by default;
///   Beagle's own backend reads `beagle-hash`). In `If-None-Match` it goes only as one entity tag: the content
///   hash quoted, a hash that is no entity tag (`*`, a list) not at all. A 304 stores the reference again with a
///   new time of creation (and the 304's `max-age`, if any).
/// - A 2xx response replaces the reference: its hash is the `ETag`, or a 128-bit FNV-1a hash of the body
///   when there is none or it is longer than 1 KiB; its maxAge is how long the response stays fresh once received, from StrataNetwork's
///   `HTTPFreshness` for a private cache (`max-age`, then `Expires` − `Date`, less the response's age;
///   `no-cache` makes it 0 so the next fetch revalidates), or `nil` for the manager's default.
///   A response that must not be stored (`no-store`, in it or in the request; `Vary: *`; a status a cache may
///   not store without being told, such as `202`, without freshness) is returned but not cached.
/// - A response that varies on request fields (`Vary: Accept-Language`) keeps the values its request sent in them
///   (``CacheReference/variedFields``): a request that sends other values is not answered from it without asking the
///   server (RFC 9111, section 4.1), which answers 304 when the stored version is its answer too, and otherwise
///   replaces it. A response that varies on more than 16 fields is not cached.
/// - A request's own `Cache-Control` is heard (RFC 9111, section 5.2.1): with `no-cache` a stored reference is not
///   used without revalidating it, and with `max-age=N` one older than `N` seconds is revalidated.
/// - Only a GET is answered from the cache and stored (RFC 9111, section 2), and only one for the whole resource: a
///   GET that carries `Range` and any other request are sent as they are (origin `.network`, no hash), their
///   response returned and not stored, the stored reference left as it was (a `206` is a part, never the
///   reference). One whose method is unsafe (anything but `GET`, `HEAD`, `OPTIONS` and `TRACE`) marks the reference
///   under its identifier stale (section 4.4), so the next GET revalidates it, when it succeeds and when it fails but
///   may have taken effect: cancelled by the caller on its way, or an error that says
///   ``Strata/StrataError/mayHaveTakenEffect`` (a timeout after it was sent, a gateway's `502`).
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

    /// GETs `url` through the cache; the reference's identifier is the URL without its fragment.
    ///
    /// - Parameter url: The URL.
    /// - Returns: The reference and where it came from.
    /// - Throws: The ``Strata/StrataError`` of the request (network, status).
    public func fetch(url: URL) async throws -> CachedFetchResult {
        // A fragment is never sent: URLs that differ only in one are one reference.
        try await fetch(HTTPRequest(.get, url: url), identifier: url.withoutFragment.absoluteString)
    }

    /// Sends `request` through the cache.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - identifier: The reference's identifier; the request's `HTTPRequest/cacheKey` when `nil`.
    /// - Returns: The reference and where it came from.
    /// - Throws: The ``Strata/StrataError`` of the request (network, status); a 304 when no reference is
    ///   cached, or to a revalidation that could not send the stored hash, is thrown as is
    ///   (``Strata/StrataError/Code/unexpectedResponse``): it is about no version the cache holds.
    public func fetch(_ request: HTTPRequest, identifier: String? = nil) async throws -> CachedFetchResult {
        let identifier = identifier ?? request.cacheKey
        // A part is not the reference: a range goes past the cache, as a request other than a GET does.
        guard request.method == .get, request.headers["Range"] == nil else {
            return try await send(request, identifier: identifier)
        }
        // A CacheRepository per fetch: the manager's references, valid as the manager says, over the server.
        let source = ReferenceSource(
            request: request,
            identifier: identifier,
            client: client,
            hashHeader: hashHeader,
            clock: clock
        )
        let store = ReferenceStore(manager: cacheManager)
        let sent = client.asSent(request)
        let validator = ReferenceValidator(
            manager: cacheManager,
            request: sent.headers.cacheControl,
            sent: sent,
            clock: clock
        )
        let repository = CacheRepository(
            main: source,
            cache: store.validated(by: validator),
            configuration: .init(coalescesMainReads: false)
        )
        let entry = try await repository.getEntry(KeyQuery(identifier), operation: CacheSyncOperation())
        let origin = source.origin.withLock { $0 }
        // After a 304 the repository answers the stale reference with the renewed metadata, as stored.
        let reference = origin == .revalidated ? entry.value.renewed(by: entry.metadata) : entry.value
        return CachedFetchResult(reference: reference, origin: origin)
    }

    /// Sends a request the cache does not answer (a method other than GET, a range) past it: its response is not
    /// stored, and an unsafe method that succeeded, or failed but may have taken effect
    /// (`StrataError.writeMayHaveTakenEffect(after:)`), marks the stored reference stale (kept, with its hash, for the
    /// next GET to revalidate).
    private func send(_ request: HTTPRequest, identifier: String) async throws -> CachedFetchResult {
        // Made before the request: a clear while it runs is not undone by the stale mark.
        let store = ReferenceStore(manager: cacheManager)
        let isUnsafe = !Self.safeMethods.contains(request.method)
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch  where isUnsafe && StrataError.writeMayHaveTakenEffect(after: error) {
            // Cancelled on its way, or lost after it left (a timeout, a gateway's 502): the server may have run it.
            store.markStale(identifiedBy: identifier)
            throw error
        }
        let now = clock.now()
        if isUnsafe { store.markStale(identifiedBy: identifier) }
        let reference = CacheReference(response: response, identifier: identifier, maxAge: nil, timeOfCreation: now)
        return CachedFetchResult(reference: reference, origin: .network)
    }

    /// The methods that change nothing on the server (RFC 9110, section 9.2.1).
    private static let safeMethods: Set<HTTPMethod> = [
        .get, .head, HTTPMethod(rawValue: "OPTIONS"), HTTPMethod(rawValue: "TRACE"),
    ]
}
