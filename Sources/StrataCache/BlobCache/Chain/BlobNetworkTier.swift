import Foundation
import Strata
import StrataNetwork

/// The network under a ``BlobCache``: the main source of the chain's lower repository, on StrataNetwork's
/// conditional fetch, where a `304` is a value.
///
/// A download carries its HTTP freshness (RFC 9111, computed by `HTTPFreshness` for the cache's policy) and
/// directives in its ``Blob``; ``getIfModified(_:since:)`` sends the stored `ETag` / `Last-Modified` and answers
/// a `304` as `notModified` with the 304's freshness, if it gave one, and its stale-serving directives when it sends
/// `Cache-Control`.
struct BlobNetworkTier: BlobTier {
    let link: BlobCacheLink

    var origin: DataOrigin { .network }

    func getEntry(_ query: any Query) async throws -> StoredEntry<Blob> {
        switch try await getIfModified(query, since: EntryMetadata()) {
        case .modified(let entry): return entry
        case .notModified:
            // A 304 to a request that sent no validators: there is nothing to renew.
            throw StrataError(
                .unexpectedResponse,
                "GET \(try BlobCache.key(of: query).describedForErrorsAsURL) answered 304 Not Modified"
            )
        }
    }

    /// Sends the request, conditional on `metadata`'s validators, and answers what the server said.
    ///
    /// The cache is not held while the request is on its way (a background revalidation or a download its fetchers
    /// abandoned would keep a released cache, and its persistent folder, alive until the server answered): what the
    /// request needs is copied out first, and the cache taken again with the answer.
    ///
    /// - Throws: ``Strata/StrataError/Code/cancelled`` when the cache was released meanwhile: nothing is written
    ///   back. The client's errors as they are.
    func getIfModified(_ query: any Query, since metadata: EntryMetadata) async throws -> ConditionalRead<Blob> {
        let (client, clock, key, removalsBefore) = try { () throws -> (HTTPClient, any WallClock, String, Int) in
            let (cache, key) = try target(of: query)
            // Before the request: a removal while it is on its way keeps its answer out of both layers.
            return (cache.client, cache.configuration.clock, key, cache.removals.mark(key))
        }()
        guard let url = URL(string: key) else { throw StrataError(.invalidArgument, "\(key) is not a URL") }
        let conditions = ConditionalHeaders(eTag: metadata.eTag, lastModified: metadata.lastModified)
        let requestTime = clock.now()
        let request = HTTPRequest(.get, url: url)
        let sent = client.asSent(request)
        let answer = try await client.send(request, ifModifiedSince: conditions)
        let (cache, _) = try target(of: query)
        switch answer {
        case .modified(let response):
            var download = cache.download(response, requestTime: requestTime, to: sent)
            download.value.removalsBefore = removalsBefore
            // Before the write-back, which holds the key's turn: fetches of other keys of its stripe wait for that
            // turn, and would wait for this room too. A download that will not be written reserves none.
            if cache.configuration.persistent.writes == .behind, download.value.isStorable {
                let room = await cache.writes.reservedRoom(for: download.value.footprint)
                download.value.room = room.map { .reserved($0) } ?? .refused
            }
            return .modified(download)
        case .notModified(let response):
            if metadata.eTag == nil, metadata.lastModified == nil {
                let request = "GET \(url.describedForErrors)"
                throw HTTPClient.error(for: response, request: request, now: clock.now())
                    ?? StrataError(.unexpectedResponse, "\(request) answered 304 Not Modified")
            }
            let freshness = HTTPFreshness(
                response: response,
                requestTime: requestTime,
                responseTime: clock.now(),
                policy: cache.configuration.freshnessPolicy,
                request: sent
            )
            let sendsCacheControl = response.headers["Cache-Control"] != nil
            var renewed = metadata
            // Weighed against the stored lifetime as the blob is renewed (`FreshnessRecord.renewed`).
            renewed.freshUntil = freshness.renewing(freshness.expiresAt, sendsCacheControl: sendsCacheControl)
            // A 304 that says `no-store` removes the stored blob, as a full answer would (section 4.3.4).
            renewed.expiresAt =
                freshness.keepsRenewedResponse(sendsCacheControl: sendsCacheControl) ? metadata.expiresAt : .distantPast
            // The 304's own Cache-Control replaces the stored stale-serving directives (section 4.3.4).
            if sendsCacheControl {
                renewed.forbidsServingStale = freshness.forbidsServingStale
                renewed.renewalDirectives = RenewalDirectives(
                    forbidsServingStale: freshness.forbidsServingStale,
                    requiresRevalidation: freshness.requiresRevalidation,
                    staleWhileRevalidate: freshness.staleWhileRevalidate,
                    staleIfError: freshness.staleIfError
                )
            }
            let validators = conditions.renewed(by: response)
            renewed.eTag = validators.eTag
            renewed.lastModified = validators.lastModified
            return .notModified(renewed)
        }
    }
}

extension BlobCache {
    /// A download as the chain carries it: its body, its freshness record and directives, and its metadata.
    ///
    /// A response that varies on request fields (`Vary`) carries the fields and a digest of the request's values in
    /// them in its record (``BlobVariant``); one that varies on more than a cache keeps is not storable.
    ///
    /// - Parameter request: The request as sent (``StrataNetwork/HTTPClient``'s headers included), whose
    ///   `Cache-Control: no-store` or, for a shared cache, `Authorization` can make the response not storable.
    func download(_ response: HTTPResponse, requestTime: Date, to request: HTTPRequest) -> StoredEntry<Blob> {
        let now = configuration.clock.now()
        let freshness = HTTPFreshness(
            response: response,
            requestTime: requestTime,
            responseTime: now,
            policy: configuration.freshnessPolicy,
            request: request
        )
        let httpLifetime = freshness.remainingLifetime
        let persistentLifetime = httpLifetime ?? configuration.persistent.initialLifetime
        let variant = BlobVariant(of: response, answering: request)
        let record = FreshnessRecord(
            freshUntil: now.addingTimeInterval(persistentLifetime.timeInterval),
            lifetime: persistentLifetime.timeInterval,
            staleIfError: freshness.staleIfError?.timeInterval,
            mustRevalidate: freshness.forbidsServingStale,
            noCache: freshness.requiresRevalidation,
            contentHash: 0,
            staleWhileRevalidate: freshness.staleWhileRevalidate?.timeInterval,
            variant: variant?.names.isEmpty == false ? variant : nil
        )
        let blob = Blob(
            data: response.body,
            origin: .network,
            record: record,
            isStorable: freshness.isStorable && variant != nil,
            httpLifetime: httpLifetime
        )
        // Only validators that can revalidate are kept: they live beside the blob outside every size limit.
        let validators = ConditionalHeaders.storable(
            eTag: response.eTag,
            lastModified: response.headers["Last-Modified"]
        )
        let metadata = EntryMetadata(
            freshUntil: record.freshUntil,
            eTag: validators.eTag,
            lastModified: validators.lastModified
        )
        return StoredEntry(value: blob, metadata: metadata)
    }
}
