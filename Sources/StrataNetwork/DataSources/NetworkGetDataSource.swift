import Foundation
import Strata

/// A ``Strata/GetDataSource`` over HTTP: a rule turns each query into a request, and a mapper decodes
/// the response body.
///
/// ```swift
/// let users = NetworkGetDataSource<User>(client: client) { query in
///     guard let query = query as? any KeyedQuery else {
///         throw StrataError.queryNotSupported(query, by: NetworkGetDataSource<User>.self)
///     }
///     return HTTPRequest(.get, baseURL: base, path: "users/\(query.key)")
/// }
/// ```
///
/// Errors are the client's: 404 is ``Strata/StrataError/Code/notFound`` (so a ``Strata/CacheRepository``
/// treats it as a miss), a body that does not decode is ``Strata/StrataError/Code/dataSerialization``.
///
/// The source speaks HTTP caching to the tiers in front of it: ``getEntry(_:)`` returns the value with its
/// metadata — fresh until the end of its ``HTTPFreshness`` lifetime (``Strata/EntryMetadata/freshUntil``),
/// `ETag`, `Last-Modified` — and ``getIfModified(_:since:)`` sends a stored entry's validators and answers a 304
/// as ``Strata/ConditionalRead/notModified(_:)`` with the renewed metadata, so a cache renews its copy without
/// transferring or rewriting the value.
///
/// HTTP freshness is not a hard expiry: the metadata has no ``Strata/EntryMetadata/expiresAt`` (the cache's own
/// time to live applies), so a cache keeps the copy past its freshness to serve it stale or revalidate it, and
/// no ``Strata/EntryMetadata/storedAt`` (the cache stamps the copy with its own clock). Validate the cache with
/// ``Strata/FreshnessValidator`` (`.fresh(clock:)`) to revalidate each copy once it is stale:
///
/// ```swift
/// let repository = CacheRepository(main: http, cache: files.validated(by: .fresh(clock: clock)))
/// ```
public struct NetworkGetDataSource<Value: Sendable>: GetDataSource {
    /// The client that sends the requests.
    public let client: HTTPClient

    /// What kind of cache the entries' expiry is computed for: a private cache without heuristics by default.
    public var freshnessPolicy: HTTPFreshness.Policy = .privateCache

    private let request: NetworkRequestRule
    private let decoders: ResponseDecoders<Value>

    /// Creates a source with explicit mappers.
    ///
    /// - Parameters:
    ///   - client: The client.
    ///   - request: Maps a query to a request; used by `get` and `getAll`.
    ///   - decode: Decodes the body of a `get`.
    ///   - decodeAll: Decodes the body of a `getAll`.
    public init(
        client: HTTPClient,
        request: @escaping NetworkRequestRule,
        decode: some Mapper<Data, Value>,
        decodeAll: some Mapper<Data, [Value]>
    ) {
        self.client = client
        self.request = request
        decoders = ResponseDecoders(one: decode, all: decodeAll)
    }

    /// Sends the request of the query and decodes one value.
    ///
    /// - Throws: ``Strata/StrataError``, see ``HTTPClient/send(_:)``.
    public func get(_ query: any Query) async throws -> Value {
        try await client.send(makeRequest(request, for: query), decodingWith: decoders.one)
    }

    /// Sends the request of the query and decodes a list of values.
    ///
    /// - Throws: ``Strata/StrataError``, see ``HTTPClient/send(_:)``.
    public func getAll(_ query: any Query) async throws -> [Value] {
        try await client.send(makeRequest(request, for: query), decodingWith: decoders.all)
    }

    /// Sends the request of the query and decodes one value, with its metadata: ``Strata/EntryMetadata/freshUntil``
    /// is when the response stops being fresh (the client's clock at receipt plus
    /// ``HTTPFreshness/remainingLifetime``; the time of receipt for `no-cache`, and for `must-revalidate` without
    /// a lifetime; `nil` when the response gives no lifetime), with its `ETag` and `Last-Modified` when a cache may
    /// keep them: an entity tag of at most 1 KiB, a `Last-Modified` that is an HTTP date (anything else is dropped).
    /// ``Strata/EntryMetadata/storedAt`` and ``Strata/EntryMetadata/expiresAt`` are `nil`: a cache that stores
    /// the value stamps it with its own clock and applies its own time to live. A response that must not be
    /// stored (`no-store`, in it or in the request) has the distant past as its expiry: a
    /// ``Strata/CacheRepository`` returns it without storing it (``Strata/EntryMetadata/isStorable``).
    ///
    /// - Throws: ``Strata/StrataError``, see ``HTTPClient/send(_:)``.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Value> {
        let request = try makeRequest(request, for: query)
        let requestTime = client.configuration.clock.now()
        let response = try await client.send(request)
        let metadata = metadata(of: response, to: request, requestTime: requestTime)
        return StoredEntry(
            value: try decoders.value(in: response, of: request),
            metadata: metadata
        )
    }

    /// Sends the request of the query and decodes a list of values, each with the response's metadata as
    /// ``getEntry(_:)`` reports it (its freshness, whether it may be stored and served stale), but for its validators:
    /// an `ETag` or a `Last-Modified` is the list's, not any one value's, and a list is not read conditionally.
    ///
    /// - Throws: ``Strata/StrataError``, see ``HTTPClient/send(_:)``.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
        let request = try makeRequest(request, for: query)
        let requestTime = now()
        let response = try await client.send(request)
        var metadata = metadata(of: response, to: request, requestTime: requestTime)
        metadata.eTag = nil
        metadata.lastModified = nil
        return try decoders.values(in: response, of: request).map { StoredEntry(value: $0, metadata: metadata) }
    }

    /// Sends the request of the query with the validators of `metadata` (`If-None-Match` from its
    /// ``Strata/EntryMetadata/eTag``, `If-Modified-Since` from its ``Strata/EntryMetadata/lastModified``): a 304
    /// is ``Strata/ConditionalRead/notModified(_:)`` with the renewed metadata (fresh until the 304's lifetime
    /// runs out — or, when the 304 gives none, for as long as the stored entry was fresh when stored, as RFC 9111
    /// keeps the stored response's rules; a 304 without `Cache-Control` keeps the stored one, so it renews an entry
    /// for no longer than it was fresh when stored, and a `no-cache` one not at all, whatever its `Expires`; the
    /// stored validators, or the 304's when its `ETag` matches the stored one; no stored date and no
    /// expiry, as ``getEntry(_:)`` reports them), a 2xx ``Strata/ConditionalRead/modified(_:)`` as
    /// ``getEntry(_:)``.
    ///
    /// - Throws: ``Strata/StrataError``, see ``HTTPClient/send(_:)``.
    public func getIfModified(_ query: any Query, since metadata: EntryMetadata) async throws -> ConditionalRead<Value>
    {
        let request = try makeRequest(request, for: query)
        let conditions = ConditionalHeaders(eTag: metadata.eTag, lastModified: metadata.lastModified)
        let requestTime = client.configuration.clock.now()
        switch try await client.send(request, ifModifiedSince: conditions) {
        case .modified(let response):
            let renewed = self.metadata(of: response, to: request, requestTime: requestTime)
            return .modified(
                StoredEntry(
                    value: try decoders.value(in: response, of: request),
                    metadata: renewed
                )
            )
        case .notModified(let response):
            let freshness = self.freshness(of: response, to: request, requestTime: requestTime)
            var renewed = Self.metadata(of: response, freshness: freshness)
            let kept = conditions.renewed(by: response)
            let validators = ConditionalHeaders.storable(eTag: kept.eTag, lastModified: kept.lastModified)
            renewed.eTag = validators.eTag
            renewed.lastModified = validators.lastModified
            let responseTime = freshness.responseTime
            // The stored response's directives stand unless the 304 sends its own (section 4.3.4).
            let sendsCacheControl = response.headers["Cache-Control"] != nil
            renewed.freshUntil = HTTPFreshness.renewedFreshUntil(
                notModified: freshness.renewing(renewed.freshUntil, sendsCacheControl: sendsCacheControl),
                sendsCacheControl: sendsCacheControl,
                stored: Self.freshUntil(keeping: metadata, renewedAt: responseTime),
                storedRequiresRevalidation: false,
                now: responseTime
            )
            if !sendsCacheControl { renewed.forbidsServingStale = metadata.forbidsServingStale }
            // The stored directives decide whether it may be stored unless the 304 sends its own: a shared cache's
            // rule for a request with `Authorization` reads the `public` the 304 did not repeat.
            renewed.expiresAt =
                freshness.keepsRenewedResponse(sendsCacheControl: sendsCacheControl) ? nil : .distantPast
            return .notModified(renewed)
        }
    }

    /// The time of receipt, by the client's clock.
    private func now() -> Date { client.configuration.clock.now() }

    /// Until when a stored entry renewed by a `304` that gives no freshness of its own is fresh: the stored
    /// entry's rules stay in force (RFC 9111, section 4.3.4), so it is fresh again for as long as it was fresh
    /// when stored (`freshUntil − storedAt`, counted from the 304, at most 2³¹ seconds as every HTTP lifetime: two
    /// finite stored dates far apart, from a damaged or planted store, make no infinite date a cache would refuse);
    /// without a lifetime it stays without one, and without a stored date it is stale at once (revalidated next time),
    /// never fresh forever.
    private static func freshUntil(keeping stored: EntryMetadata, renewedAt responseTime: Date) -> Date? {
        guard let freshUntil = stored.freshUntil else { return nil }
        guard let storedAt = stored.storedAt else { return responseTime }
        let lifetime = freshUntil.timeIntervalSince(storedAt)
        return responseTime.addingTimeInterval(lifetime > 0 ? min(lifetime, Double(DeltaSeconds.maximum)) : 0)
    }

    /// The metadata of a response received now: until when it is fresh, its `ETag` and `Last-Modified`, whether it
    /// may be served stale (not with `must-revalidate` or `no-cache`); no
    /// stored date and no expiry, which the cache that stores it decides — but for a response that must not be
    /// stored (`no-store` in the response or the request, or `private` for a shared cache), whose expiry is the
    /// distant past
    /// (``Strata/EntryMetadata/isStorable``).
    private func metadata(of response: HTTPResponse, to request: HTTPRequest, requestTime: Date) -> EntryMetadata {
        Self.metadata(of: response, freshness: freshness(of: response, to: request, requestTime: requestTime))
    }

    /// The freshness of a response received now, to `request` as the client sends it.
    private func freshness(of response: HTTPResponse, to request: HTTPRequest, requestTime: Date) -> HTTPFreshness {
        HTTPFreshness(
            response: response,
            requestTime: requestTime,
            responseTime: now(),
            policy: freshnessPolicy,
            request: client.asSent(request)
        )
    }

    /// The metadata of `response`, whose freshness is `freshness`, with the validators a cache may keep
    /// (``ConditionalHeaders/storable(eTag:lastModified:)``: a server's 100 KiB `ETag` is not held beside each value).
    ///
    /// A response that varies on the request's fields (`Vary: Authorization`, `Vary: Accept-Language`) answers only
    /// requests that send the same values in them (RFC 9111, section 4.1), which a store keyed by the query cannot
    /// tell: it is stale from the start, revalidated before every reuse, so that a request rule that now sends
    /// another user's token or another language is answered for them.
    private static func metadata(of response: HTTPResponse, freshness: HTTPFreshness) -> EntryMetadata {
        let validators = ConditionalHeaders.storable(
            eTag: response.eTag,
            lastModified: response.headers["Last-Modified"]
        )
        let varies = HTTPFreshness.variesOnRequestFields(response.headers)
        return EntryMetadata(
            storedAt: nil,
            expiresAt: freshness.isStorable ? nil : .distantPast,
            freshUntil: varies ? freshness.responseTime : Self.freshUntil(freshness),
            eTag: validators.eTag,
            lastModified: validators.lastModified,
            forbidsServingStale: freshness.forbidsServingStale
        )
    }

    /// When a response stops being fresh: its time of receipt plus its remaining lifetime (zero for `no-cache`);
    /// its time of receipt when it forbids serving stale (`must-revalidate`) without giving a lifetime; `nil`
    /// when it gives no lifetime.
    private static func freshUntil(_ freshness: HTTPFreshness) -> Date? {
        if let remaining = freshness.remainingLifetime {
            return freshness.responseTime.addingTimeInterval(remaining.timeInterval)
        }
        return freshness.forbidsServingStale ? freshness.responseTime : nil
    }
}

extension NetworkGetDataSource where Value: Decodable {
    /// Creates a source that decodes JSON bodies: a value for `get`, an array for `getAll`.
    ///
    /// - Parameters:
    ///   - client: The client.
    ///   - decoder: Makes the decoder.
    ///   - request: Maps a query to a request.
    public init(
        client: HTTPClient,
        decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
        request: @escaping NetworkRequestRule
    ) {
        self.init(
            client: client,
            request: request,
            decode: DataToDecodableMapper<Value>(decoder: decoder),
            decodeAll: DataToDecodableMapper<[Value]>(decoder: decoder)
        )
    }
}
