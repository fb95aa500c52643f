import Foundation
import Strata
import StrataNetwork
internal import StrataSupport

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
        let existing = cacheManager.getReference(identifiedBy: identifier)
        if let existing, cacheManager.isValid(reference: existing) {
            return CachedFetchResult(reference: existing, origin: .cache)
        }
        var request = request
        if let existing, !existing.hash.isEmpty { request.headers[hashHeader] = existing.hash }
        let requestTime = clock.now()
        let response: HTTPResponse
        // The hash travels in `hashHeader` as it is (it need not be an entity tag), so no conditions are added;
        // a 304 is still a value.
        switch try await client.send(request, ifModifiedSince: ConditionalHeaders()) {
        case .modified(let modified):
            response = modified
        case .notModified(let notModified):
            guard let existing else {
                throw HTTPClient.error(for: notModified, request: "\(request.method) \(identifier)", now: clock.now())
                    ?? StrataError(.unexpectedResponse, "\(identifier) answered 304 Not Modified with nothing cached")
            }
            let refreshed = CacheReference(
                identifier: identifier,
                data: existing.data,
                hash: notModified.eTag ?? existing.hash,
                maxAge: maxAge(of: notModified, requestTime: requestTime) ?? existing.maxAge,
                timeOfCreation: clock.now()
            )
            cacheManager.addToCache(refreshed)
            return CachedFetchResult(reference: refreshed, origin: .revalidated)
        }
        let freshness = HTTPFreshness(response: response, requestTime: requestTime, responseTime: clock.now())
        let reference = CacheReference(
            identifier: identifier,
            data: response.body,
            hash: response.eTag ?? FNV1a128.hex(bytes: response.body),
            maxAge: Self.seconds(freshness.remainingLifetime),
            timeOfCreation: clock.now()
        )
        if freshness.isStorable { cacheManager.addToCache(reference) }
        return CachedFetchResult(reference: reference, origin: .network)
    }

    /// The seconds a response stays fresh once received (``StrataNetwork/HTTPFreshness/remainingLifetime``: 0
    /// for `no-cache`), or `nil` when it gives no lifetime.
    private func maxAge(of response: HTTPResponse, requestTime: Date) -> Int? {
        Self.seconds(
            HTTPFreshness(response: response, requestTime: requestTime, responseTime: clock.now()).remainingLifetime
        )
    }

    private static func seconds(_ duration: Duration?) -> Int? {
        duration.map { Int(clamping: $0.components.seconds) }
    }
}
