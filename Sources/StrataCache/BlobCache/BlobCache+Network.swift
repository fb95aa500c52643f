import Foundation
import Strata
import StrataNetwork

extension BlobCache {
    /// The persistent layer, then the network: runs once per URL for all concurrent callers.
    func loadBelowEphemeral(url: URL, key: String) async throws -> Fetched {
        // A stale download still queued is written first, so revalidation sees its validators.
        await settleQueuedWrite(forKey: key)
        if let hit = persistentHit(key) { return Fetched(data: hit.data, layer: .persistent) }
        // A stale blob is read only when it can serve: revalidation needs a validator, serve-stale the option.
        let validators = blobs.info(forKey: key).map {
            ConditionalHeaders(eTag: $0.eTag, lastModified: $0.lastModified)
        }
        let canUseStale = (validators.map { !$0.isEmpty } ?? false) || configuration.servesStaleOnError
        let stale = canUseStale ? persistentEntry(key) : nil
        let conditions = ConditionalHeaders(eTag: stale?.info.eTag, lastModified: stale?.info.lastModified)
        let requestTime = configuration.clock.now()
        do {
            switch try await client.send(HTTPRequest(.get, url: url), ifModifiedSince: conditions) {
            case .modified(let response):
                return Fetched(data: try store(response, forKey: key, requestTime: requestTime), layer: .network)
            case .notModified(let response):
                guard let stale else {
                    // A 304 to a request that sent no validators: there is nothing to renew.
                    let request = "GET \(url.absoluteString)"
                    throw HTTPClient.error(for: response, request: request, now: configuration.clock.now())
                        ?? StrataError(.unexpectedResponse, "\(request) answered 304 Not Modified")
                }
                try renew(stale, forKey: key, with: response, requestTime: requestTime)
                return Fetched(data: stale.data, layer: .revalidated)
            }
        } catch {
            if let stale, servesStale(stale, after: error) { return Fetched(data: stale.data, layer: .stale) }
            throw error
        }
    }

    /// Stores a download in both layers as its headers allow and returns its body.
    func store(_ response: HTTPResponse, forKey key: String, requestTime: Date) throws -> Data {
        let control = response.cacheControl
        let now = configuration.clock.now()
        let freshness = HTTPFreshness(
            headers: response.headers,
            control: control,
            requestTime: requestTime,
            responseTime: now,
            policy: configuration.freshnessPolicy
        )
        guard freshness.isStorable else {
            // Never stored; an older copy must not be served in its place later.
            memory.removeValue(forKey: key)
            afterQueuedWrites {
                writeQueue.drop(key)
                forgetPersistent(key)
            }
            return response.body
        }
        let httpLifetime = freshness.remainingLifetime
        let persistentLifetime = httpLifetime ?? configuration.persistent.initialLifetime
        let ephemeralLifetime = httpLifetime ?? configuration.ephemeral.initialLifetime
        if ephemeralLifetime > .zero {
            let blob = CachedBlob(
                data: response.body,
                expiresAt: now.addingTimeInterval(ephemeralLifetime.timeInterval),
                lifetime: ephemeralLifetime
            )
            putInMemory(blob, forKey: key, now: now)
        } else {
            memory.removeValue(forKey: key)
        }
        do {
            let record = FreshnessRecord(
                freshUntil: now.addingTimeInterval(persistentLifetime.timeInterval),
                lifetime: persistentLifetime.timeInterval,
                staleIfError: freshness.staleIfError?.timeInterval,
                mustRevalidate: freshness.forbidsServingStale,
                noCache: freshness.requiresRevalidation,
                contentHash: 0
            )
            guard configuration.persistent.writes == .beforeReturning else {
                let write = WriteQueue.Write(
                    data: response.body,
                    eTag: response.eTag,
                    lastModified: response.headers["Last-Modified"],
                    record: record
                )
                enqueuePersistent(write, forKey: key)
                return response.body
            }
            try storePersistent(
                response.body,
                forKey: key,
                eTag: response.eTag,
                lastModified: response.headers["Last-Modified"],
                record: record
            )
        } catch {
            throw StrataError(
                .cacheSyncFailed,
                "Storing the download of \(key) on disk failed",
                underlying: error,
                payload: response.body
            )
        }
        return response.body
    }

    /// Renews a stale blob after a `304`: a new freshness record, no rewrite of the blob, and a copy in memory.
    ///
    /// The 304's `Cache-Control` and freshness headers replace the stored ones when it has them (RFC 9111,
    /// section 4.3.4); otherwise the stored directives and lifetime apply again.
    func renew(_ stale: PersistentEntry, forKey key: String, with response: HTTPResponse, requestTime: Date) throws {
        let now = configuration.clock.now()
        let http = HTTPFreshness(
            response: response,
            requestTime: requestTime,
            responseTime: now,
            policy: configuration.freshnessPolicy
        )
        let hasDirectives = response.headers["Cache-Control"] != nil
        let noCache = hasDirectives ? http.requiresRevalidation : stale.record?.noCache ?? false
        let storedLifetime = stale.record.map { Duration.seconds($0.lifetime) }
        let lifetime =
            noCache
            ? .zero
            : http.remainingLifetime ?? storedLifetime ?? configuration.persistent.initialLifetime
        let record = FreshnessRecord(
            freshUntil: now.addingTimeInterval(lifetime.timeInterval),
            lifetime: lifetime.timeInterval,
            staleIfError: hasDirectives ? http.staleIfError?.timeInterval : stale.record?.staleIfError,
            mustRevalidate: hasDirectives ? http.forbidsServingStale : stale.record?.mustRevalidate ?? false,
            noCache: noCache,
            contentHash: stale.info.contentHash
        )
        do {
            try freshness.setValue(record.encoded(), forKey: key)
        } catch {
            throw StrataError(
                .cacheSyncFailed,
                "Renewing \(key) after 304 failed",
                underlying: error,
                payload: stale.data
            )
        }
        copyUp(stale.data, forKey: key, record: record, now: now)
    }

    /// Whether a stale blob may stand in for a failed download: only when configured, for transport
    /// failures and 5xx, within `stale-if-error` when the response gave it, never under `must-revalidate`.
    func servesStale(_ stale: PersistentEntry, after error: any Error) -> Bool {
        guard configuration.servesStaleOnError, let error = error as? StrataError else { return false }
        let isOutage =
            error.code == .network || (error.code == .unexpectedResponse && (error.httpFailure?.status ?? 0) >= 500)
        guard isOutage else { return false }
        guard let record = stale.record else { return true }
        guard !record.mustRevalidate else { return false }
        guard let window = record.staleIfError else { return true }
        return configuration.clock.now() < record.freshUntil.addingTimeInterval(window)
    }
}
