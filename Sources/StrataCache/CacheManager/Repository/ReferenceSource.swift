import Foundation
import Strata
import StrataNetwork

/// The server behind a ``CachedFetcher``'s repository, for one request: a 2xx is a new reference, and a stale
/// reference's hash is sent in the fetcher's hash header, where a `304` is a value.
///
/// It records what answered (``origin``) for the fetch's ``CachedFetchResult``.
struct ReferenceSource: GetDataSource {
    let request: HTTPRequest
    let identifier: String
    let client: HTTPClient
    let hashHeader: String
    let clock: any WallClock
    /// `.cache` until the server answers.
    let origin = Locked(DataOrigin.cache)

    func get(_ query: any Query) async throws -> CacheReference {
        try await getEntry(query).value
    }

    func getAll(_ query: any Query) async throws -> [CacheReference] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func getEntry(_ query: any Query) async throws -> StoredEntry<CacheReference> {
        switch try await getIfModified(query, since: EntryMetadata()) {
        case .modified(let entry): return entry
        case .notModified:
            throw StrataError(
                .unexpectedResponse,
                "\(identifier.describedForErrorsAsURL) answered 304 Not Modified with nothing cached"
            )
        }
    }

    func getIfModified(
        _ query: any Query,
        since metadata: EntryMetadata
    ) async throws -> ConditionalRead<CacheReference> {
        var request = request
        // A hash that cannot be sent is not: the server answers in full and the reference is replaced.
        let hash = metadata.eTag.flatMap(sendable)
        if let hash { request.headers[hashHeader] = hash }
        let requestTime = clock.now()
        // The hash travels in `hashHeader` as it is (it need not be an entity tag), so no conditions are added;
        // a 304 is still a value.
        switch try await client.send(request, ifModifiedSince: ConditionalHeaders()) {
        case .modified(let response):
            origin.withLock { $0 = .network }
            let freshness = HTTPFreshness(
                response: response,
                requestTime: requestTime,
                responseTime: clock.now(),
                request: client.asSent(request)
            )
            // The values the request (as sent, without the hash) gave the fields the response varies on.
            let variedFields = response.variedFields(of: client.asSent(self.request))
            let reference = CacheReference(
                response: response,
                identifier: identifier,
                maxAge: Self.seconds(freshness.remainingLifetime),
                timeOfCreation: clock.now(),
                initialAge: freshness.initialAge,
                variedFields: variedFields
            )
            var stored = reference.metadata
            // A `no-store` response (or one varying on too many fields to keep) is not storable: the repository
            // returns it without storing it.
            if !freshness.isStorable || variedFields == nil { stored.expiresAt = .distantPast }
            return .modified(StoredEntry(value: reference, metadata: stored))
        case .notModified(let response):
            // A 304 to a request that carried no hash is about no version the cache holds.
            guard hash != nil else {
                throw HTTPClient.error(
                    for: response,
                    request: "\(request.method) \(identifier.describedForErrorsAsURL)",
                    now: clock.now()
                )
                    ?? StrataError(
                        .unexpectedResponse,
                        "\(identifier.describedForErrorsAsURL) answered 304 Not Modified with nothing cached"
                    )
            }
            origin.withLock { $0 = .revalidated }
            let now = clock.now()
            let freshness = HTTPFreshness(
                response: response,
                requestTime: requestTime,
                responseTime: now,
                request: client.asSent(request)
            )
            let maxAge = Self.seconds(freshness.remainingLifetime)
            let storedLifetime = metadata.freshUntil.map { $0.timeIntervalSince(metadata.storedAt ?? now) }
            let sendsCacheControl = response.headers["Cache-Control"] != nil
            var renewed = EntryMetadata(
                storedAt: now,
                // A 304 that says `no-store` removes the stored reference, as a full answer would (section 4.3.4).
                expiresAt: freshness.keepsRenewedResponse(sendsCacheControl: sendsCacheControl) ? nil : .distantPast,
                freshUntil: HTTPFreshness.renewedFreshUntil(
                    notModified: freshness.renewing(
                        maxAge.map { now.addingTimeInterval(TimeInterval($0)) },
                        sendsCacheControl: sendsCacheControl
                    ),
                    sendsCacheControl: sendsCacheControl,
                    stored: storedLifetime.map { now.addingTimeInterval(max(0, $0)) },
                    storedRequiresRevalidation: false,
                    now: now
                ),
                eTag: ConditionalHeaders(eTag: metadata.eTag).renewed(by: response).eTag
            )
            renewed.initialAge = freshness.initialAge
            return .notModified(renewed)
        }
    }

    /// How `hash` travels in ``hashHeader``: never when a request cannot carry it (a server's `ETag` with a
    /// control character, which would fail every fetch before it is sent). In a header of the caller's own it is sent
    /// as it is (it need not be an entity tag); in `If-None-Match` only as one entity tag: a valid one as it is, the
    /// content hash (32 hex digits, for a response without `ETag`) quoted, anything else (`*`, which matches any
    /// version, or a list) not at all, so one bad response cannot make every revalidation a 304.
    private func sendable(_ hash: String) -> String? {
        guard HTTPSyntax.isFieldValue(hash) else { return nil }
        guard hashHeader.caseInsensitiveCompare("If-None-Match") == .orderedSame else { return hash }
        if ConditionalHeaders.isValidEntityTag(hash) { return hash }
        return hash.count == 32 && hash.allSatisfy(\.isHexDigit) ? "\"\(hash)\"" : nil
    }

    private static func seconds(_ duration: Duration?) -> Int? {
        duration.map(wholeSeconds)
    }
}
