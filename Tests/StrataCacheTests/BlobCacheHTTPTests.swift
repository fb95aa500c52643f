import Foundation
import LoopbackServer
import StrataTestSupport
import Testing

@testable import Strata
@testable import StrataCache

/// HTTP caching: freshness headers, no-store, ETag revalidation, stale-on-error (damaged files: BlobCacheContentCheckTests).
struct BlobCacheHTTPTests {
    /// A route that answers 304 to `If-None-Match: "v1"` and the body with `ETag: "v1"` otherwise.
    static let eTagRoute: @Sendable (ServerRequest) async throws -> ServerReply = { request in
        if request.headers["if-none-match"] == "\"v1\"" {
            return ServerReply(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=120"])
        }
        return ServerReply(
            status: 200,
            headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"],
            body: Data(repeating: 7, count: 4_096)
        )
    }

    @Test func maxAgeSetsTheFreshnessOfBothLayers() async throws {
        try await withFixture([("GET /a", reply("alpha", headers: ["Cache-Control": "max-age=30"]))]) { fixture in
            let cache = try fixture.makeCache(
                ephemeral: .init(initialLifetime: .seconds(3_600)),
                persistent: .init(initialLifetime: .seconds(3_600))
            )
            _ = try await cache.fetch(from: fixture.url("a")) as Data

            fixture.clock.advance(by: .seconds(29))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            fixture.clock.advance(by: .seconds(2))
            #expect(!cache.contains(fixture.url("a")))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .network)
            #expect(fixture.server.requestCount(path: "/a") == 2)
        }
    }

    /// A fragment is never sent: URLs that differ only in one are one blob, one entry and one request (each
    /// fragment made an entry of its own, a way to fill the cache with copies of one body).
    @Test func urlsThatDifferOnlyInTheirFragmentAreOneEntry() async throws {
        try await withFixture([("GET /a", reply("alpha", headers: ["Cache-Control": "max-age=60"]))]) { fixture in
            let cache = try fixture.makeCache()
            let plain = fixture.url("a")
            let tagged = try #require(URL(string: plain.absoluteString + "#top"))
            let other = try #require(URL(string: plain.absoluteString + "#bottom"))

            let first = try await cache.fetchWithLayer(from: tagged)
            let second = try await cache.fetchWithLayer(from: other)
            let third = try await cache.fetchWithLayer(from: plain)

            #expect([first.origin, second.origin, third.origin] == [.network, .memory, .memory])
            #expect(fixture.server.requestCount(path: "/a") == 1)
            #expect(cache.ephemeralCount == 1)
            #expect(cache.contains(other))
            try cache.remove(tagged)
            #expect(!cache.contains(plain))
        }
    }

    /// What RFC 9111 (section 3) does not let a cache store: `no-store`, `Vary: *`, and a status a cache may not
    /// store without being told (a `202 Accepted`) when no freshness is given.
    @Test(arguments: [
        (200, ["Cache-Control": "no-store"]),
        (200, ["Vary": "*", "Cache-Control": "max-age=60"]),
        (202, [:]),
    ])
    func responsesThatMustNotBeStoredAreNotStored(status: Int, headers: [String: String]) async throws {
        try await withFixture([("GET /a", reply("secret", headers: headers, status: status))]) { fixture in
            let cache = try fixture.makeCache()

            let first = try await cache.fetchWithLayer(from: fixture.url("a"))
            let second = try await cache.fetchWithLayer(from: fixture.url("a"))

            #expect(first.origin == .network && second.origin == .network)
            #expect(second.data == Data("secret".utf8))
            #expect(cache.ephemeralCount == 0)
            #expect(cache.persistentCount == 0)
            #expect(try fixture.blobFiles().isEmpty)
            #expect(fixture.server.requestCount(path: "/a") == 2)
        }
    }

    @Test func staleEntryWithETagIsRevalidatedAnd304TransfersNoBody() async throws {
        try await withFixture([("GET /a", Self.eTagRoute)]) { fixture in
            let cache = try fixture.makeCache()
            let original = try await cache.fetch(from: fixture.url("a")) as Data
            let file = try #require(try fixture.blobFiles().first)
            // The file's identity: a renewal rewrites its trailer in place, never the file.
            let written = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int

            // When: the blob is stale in both layers
            fixture.clock.advance(by: .seconds(61))
            let revalidated = try await cache.fetchWithLayer(from: fixture.url("a"))

            // Then: a conditional request, a 304 without body, the same bytes, the blob file untouched
            #expect(revalidated.origin == .revalidated)
            #expect(revalidated.data == original)
            let requests = fixture.server.requests
            #expect(requests.count == 2)
            #expect(requests.last?.headers["if-none-match"] == "\"v1\"")
            #expect(try fixture.blobFiles() == [file])
            let after = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int
            #expect(after == written)
            #expect(try Data(contentsOf: file).prefix(original.count) == original)

            // And: the 304's max-age=120 renewed the freshness on disk and in memory
            fixture.clock.advance(by: .seconds(119))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            cache.purgeEphemeral()
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
            #expect(fixture.server.requestCount(path: "/a") == 2)
        }
    }

    /// A 304 whose `Cache-Control` drops the stored `stale-while-revalidate` still renews the blob's file in place:
    /// its record keeps its length (a window of zero seconds, which serves nothing stale), so the trailer does not
    /// shrink and the blob's bytes are not copied to a new file. Before, every such 304 copied the whole blob under
    /// the store's lock.
    @Test func aNotModifiedThatDropsTheStaleWindowRenewsTheFileInPlace() async throws {
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            if request.headers["if-none-match"] == "\"v1\"" {
                return ServerReply(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=120"])
            }
            return ServerReply(
                status: 200,
                headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60, stale-while-revalidate=30"],
                body: Data(repeating: 7, count: 4_096)
            )
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try fixture.makeCache()
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            let file = try #require(try fixture.blobFiles().first)
            let written = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int

            // Past the window too, so the fetch waits for the revalidation
            fixture.clock.advance(by: .seconds(91))
            let renewed = try await cache.fetchWithLayer(from: fixture.url("a"))

            #expect(renewed.origin == .revalidated)
            #expect(fixture.server.requestCount(path: "/a") == 2)
            let after = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int
            #expect(after == written)
            // No window is left: stale again, the blob is revalidated before it is served
            fixture.clock.advance(by: .seconds(121))
            cache.purgeEphemeral()
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .revalidated)
        }
    }

    /// A response reached through a redirect is its target's (RFC 9111, section 4): stored under the URL asked for,
    /// it is revalidated before each reuse, so a moved redirect is followed. Before, `/latest` answered the first
    /// target for the target's whole lifetime (a year for a versioned asset) after the redirect moved.
    @Test func aResponseReachedThroughARedirectIsRevalidatedBeforeItIsReused() async throws {
        let target = Locked("v1")
        let version: @Sendable (String) -> @Sendable (ServerRequest) async throws -> ServerReply = { name in
            { request in
                if request.headers["if-none-match"] == "\"\(name)\"" {
                    return ServerReply(
                        status: 304,
                        headers: ["ETag": "\"\(name)\"", "Cache-Control": "max-age=31536000"]
                    )
                }
                return ServerReply(
                    status: 200,
                    headers: ["ETag": "\"\(name)\"", "Cache-Control": "max-age=31536000"],
                    body: Data(name.utf8)
                )
            }
        }
        let routes: [(String, @Sendable (ServerRequest) async throws -> ServerReply)] = [
            ("GET /latest", { _ in ServerReply(status: 302, headers: ["Location": "/\(target.withLock { $0 })"]) }),
            ("GET /v1", version("v1")),
            ("GET /v2", version("v2")),
        ]
        try await withFixture(routes) { fixture in
            let cache = try fixture.makeCache()
            #expect(String(decoding: try await cache.fetch(from: fixture.url("latest")) as Data, as: UTF8.self) == "v1")
            let again = try await cache.fetchWithLayer(from: fixture.url("latest"))
            #expect(again.origin == .revalidated)

            target.withLock { $0 = "v2" }
            let moved = try await cache.fetchWithLayer(from: fixture.url("latest"))

            #expect(String(decoding: moved.data, as: UTF8.self) == "v2")
            #expect(moved.origin == .network)
            #expect(fixture.server.requestCount(path: "/latest") == 3)
        }
    }

    /// A 304 without `Cache-Control` keeps the stored one (RFC 9111, section 4.3.4), also when it sends `Expires`: a
    /// `no-cache` blob is revalidated before every reuse, a `max-age=60` one is fresh for 60 s again (its `max-age`
    /// outranks `Expires`). Before, the 304's `Expires` alone made either fresh until 2100.
    @Test(arguments: ["no-cache", "max-age=60"], [nil, "Fri, 01 Jan 2100 00:00:00 GMT"])
    func aNotModifiedWithoutCacheControlKeepsTheStoredOne(cacheControl: String, expires: String?) async throws {
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            if request.headers["if-none-match"] == "\"v1\"" {
                var headers: [String: String] = [:]
                headers["Expires"] = expires
                return ServerReply(status: 304, headers: headers)
            }
            return ServerReply(
                status: 200,
                headers: ["ETag": "\"v1\"", "Cache-Control": cacheControl],
                body: Data("v1".utf8)
            )
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try fixture.makeCache()
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            fixture.clock.advance(by: .seconds(61))

            let again = try await cache.fetchWithLayer(from: fixture.url("a"))

            #expect(again.origin == .revalidated)
            #expect(again.data == Data("v1".utf8))
            #expect(fixture.server.requests.last?.headers["if-none-match"] == "\"v1\"")
            // The 304 said nothing new: no-cache still holds, so the next fetch revalidates again; max-age=60 does,
            // so the blob is fresh for 60 s, then revalidated again.
            if cacheControl == "max-age=60" {
                #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
                fixture.clock.advance(by: .seconds(61))
            }
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .revalidated)
            #expect(fixture.server.requestCount(path: "/a") == 3)
        }
    }

    @Test func lastModifiedIsSentAsIfModifiedSince() async throws {
        let stamp = "Tue, 14 Nov 2023 22:13:20 GMT"
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            if request.headers["if-modified-since"] == stamp { return ServerReply(status: 304) }
            return ServerReply(status: 200, headers: ["Last-Modified": stamp], body: Data("v1".utf8))
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try fixture.makeCache(persistent: .init(initialLifetime: .seconds(10)))
            _ = try await cache.fetch(from: fixture.url("a")) as Data

            fixture.clock.advance(by: .seconds(301))
            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))

            #expect(fetched.origin == .revalidated)
            #expect(fetched.data == Data("v1".utf8))
        }
    }

    @Test func staleEntryAndNetworkDownIsAnErrorByDefault() async throws {
        try await withFixture([("GET /a", Self.eTagRoute)]) { fixture in
            let cache = try fixture.makeCache()
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            await fixture.server.stop()
            fixture.clock.advance(by: .seconds(61))

            let error = await strataError { _ = try await cache.fetch(from: fixture.url("a")) as Data }

            #expect(error?.code == .network)
        }
    }

    @Test func staleEntryIsServedWhenTheNetworkIsDownAndTheCacheIsConfiguredTo() async throws {
        try await withFixture([("GET /a", Self.eTagRoute)]) { fixture in
            let cache = try fixture.makeCache(servesStaleOnError: true)
            let original = try await cache.fetch(from: fixture.url("a")) as Data
            await fixture.server.stop()
            fixture.clock.advance(by: .seconds(61))

            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))

            #expect(fetched.origin == .stale)
            #expect(fetched.data == original)
        }
    }

    @Test func staleIfErrorBoundsHowLongAStaleEntryIsServedOnA5xx() async throws {
        let failing = Locked(false)
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { _ in
            if failing.withLock({ $0 }) { return ServerReply(status: 503) }
            return ServerReply(
                status: 200,
                headers: ["Cache-Control": "max-age=60, stale-if-error=100"],
                body: Data("v1".utf8)
            )
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try fixture.makeCache(servesStaleOnError: true)
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            failing.withLock { $0 = true }

            fixture.clock.advance(by: .seconds(150))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .stale)
            fixture.clock.advance(by: .seconds(20))
            let error = await strataError { _ = try await cache.fetch(from: fixture.url("a")) as Data }
            #expect(error?.code == .unexpectedResponse)
        }
    }

    @Test func mustRevalidateIsNeverServedStale() async throws {
        let failing = Locked(false)
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { _ in
            if failing.withLock({ $0 }) { return ServerReply(status: 500) }
            return ServerReply(status: 200, headers: ["Cache-Control": "max-age=60, must-revalidate"])
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try fixture.makeCache(servesStaleOnError: true)
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            failing.withLock { $0 = true }
            fixture.clock.advance(by: .seconds(61))

            let error = await strataError { _ = try await cache.fetch(from: fixture.url("a")) as Data }

            #expect(error?.code == .unexpectedResponse)
        }
    }

    @Test func aHundredConcurrentFetchesOfOneURLMakeOneRequest() async throws {
        let gate = Gate()
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { _ in
            await gate.wait()
            return ServerReply(status: 200, body: Data("shared".utf8))
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let cache = try fixture.makeCache()
            let url = fixture.url("a")

            let results = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<100 { group.addTask { try await cache.fetch(from: url) } }
                await poll { sharedReadWaiters(cache, url) == 100 }
                gate.open()
                return try await group.reduce(into: [Data]()) { $0.append($1) }
            }

            #expect(results.count == 100)
            #expect(results.allSatisfy { $0 == Data("shared".utf8) })
            #expect(fixture.server.requestCount(path: "/a") == 1)
        }
    }

    /// Before, BlobCache judged a response without its request: a shared cache stored the answer to the client's
    /// `Authorization` and served it to every user (RFC 9111, section 3.5).
    @Test func aSharedCacheStoresNoAnswerToTheClientsCredentials() async throws {
        try await withFixture([("GET /me", reply("ann", headers: ["Cache-Control": "max-age=60"]))]) { fixture in
            let cache = try fixture.makeCache(freshnessPolicy: .sharedCache, headers: ["Authorization": "Bearer ann"])

            for _ in 1...2 { _ = try await cache.fetch(from: fixture.url("me")) as Data }

            #expect(fixture.server.requestCount(path: "/me") == 2)
            #expect(cache.persistentCount == 0)
        }
    }

    @Test func notFoundIsReportedAndNothingIsStored() async throws {
        try await withFixture([("GET /a", reply("gone", status: 404))]) { fixture in
            let cache = try fixture.makeCache()

            let error = await strataError { _ = try await cache.fetch(from: fixture.url("a")) as Data }

            #expect(error?.code == .notFound)
            #expect(cache.persistentCount == 0)
        }
    }
}

/// How many fetches of `url` wait for the download shared in the cache's lower repository.
func sharedReadWaiters(_ cache: BlobCache, _ url: URL) -> Int {
    let repository = cache.chain.main.repository
    let query = KeyQuery(url.absoluteString)
    let key = BlobCache.DiskRepository.MainReadKey(
        isGetAll: false,
        writesBack: true,
        query: AnyHashable(query),
        writes: repository.writeStamps.stamp(query).sum
    )
    return repository.mainReads.waiterCount(for: key)
}
