import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataNetwork
import StrataTesting
import Testing

/// A `304`'s fields update the stored response's (RFC 9111, section 4.3.4) in every composition: its `no-store`
/// removes the stored copy.
struct NotModifiedRenewalTests {
    /// A route answering `ETag: "v1"` with `Cache-Control: max-age=3600`, and a `304` with `notModified`'s headers to
    /// a request that sends the tag back.
    private static func route(notModified: [String: String]) -> @Sendable (ServerRequest) async throws -> ServerReply {
        { request in
            if request.headers["if-none-match"] == "\"v1\"" {
                return ServerReply(status: 304, headers: notModified.merging(["ETag": "\"v1\""]) { $1 })
            }
            return ServerReply(
                status: 200,
                headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=3600"],
                body: Data("v1".utf8)
            )
        }
    }

    @Test func aNoStoreNotModifiedRemovesTheBlob() async throws {
        try await withFixture([("GET /a", Self.route(notModified: ["Cache-Control": "no-store"]))]) { fixture in
            let cache = try fixture.makeCache()
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            fixture.clock.advance(by: .seconds(3601))

            let revalidated = try await cache.fetchWithLayer(from: fixture.url("a"))
            #expect(revalidated.origin == .revalidated)
            #expect(revalidated.data == Data("v1".utf8))

            // Neither memory nor disk keeps it: the next fetch downloads it again.
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .network)
            #expect(fixture.server.requestCount(path: "/a") == 3)
        }
    }

    /// A route whose `200` says `max-age=3600` and whose `304` sends no `Cache-Control`, both with a `Last-Modified` a
    /// minute before the manual clock's start and a `Date` of `clock`'s time: with heuristics on, the 304 alone would be
    /// fresh for a tenth of its `Date` less its `Last-Modified`.
    private static func heuristicRoute(
        _ clock: Locked<ManualClock?>
    ) -> @Sendable (ServerRequest) async throws -> ServerReply {
        { request in
            let now = clock.withLock { $0?.now() } ?? Date()
            var headers = [
                "ETag": "\"v1\"", "Date": HTTPDate.format(now),
                "Last-Modified": HTTPDate.format(Date(timeIntervalSince1970: 1_700_000_000 - 60)),
            ]
            if request.headers["if-none-match"] == "\"v1\"" { return ServerReply(status: 304, headers: headers) }
            headers["Cache-Control"] = "max-age=3600"
            return ServerReply(status: 200, headers: headers, body: Data("v1".utf8))
        }
    }

    /// With heuristics on, a `304` without `Cache-Control` renews for the stored `max-age`, not for its own heuristic
    /// lifetime (RFC 9111, section 4.2.2: a heuristic is for a response without an explicit expiration time). (The
    /// 304's 366 s bounded the hour, and each later renewal kept the shorter lifetime: a revalidation every six
    /// minutes for a response fresh for an hour.)
    @Test func aNotModifiedWithoutCacheControlKeepsTheStoredMaxAgeUnderHeuristics() async throws {
        let clock = Locked<ManualClock?>(nil)
        try await withFixture([("GET /a", Self.heuristicRoute(clock))]) { fixture in
            clock.withLock { $0 = fixture.clock }
            let cache = try fixture.makeCache(freshnessPolicy: .init(usesHeuristics: true))
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            fixture.clock.advance(by: .seconds(3601))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .revalidated)

            // 400 s after the renewal (past the 300 s memory keeps a blob copied up): fresh on disk for the stored
            // hour, no request
            fixture.clock.advance(by: .seconds(400))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
            #expect(fixture.server.requestCount(path: "/a") == 2)
        }
    }

    /// The same through `NetworkGetDataSource`: the renewed entry is fresh for the stored lifetime.
    @Test func aNotModifiedWithoutCacheControlKeepsTheStoredLifetimeOfANetworkSource() async throws {
        let box = Locked<ManualClock?>(nil)
        let server = try await LoopbackServer.start([("GET /a", Self.heuristicRoute(box))])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        box.withLock { $0 = clock }
        var http = NetworkGetDataSource<Data>(
            client: HTTPClient(configuration: .init(clock: clock)),
            request: { _ in HTTPRequest(baseURL: server.baseURL, path: "a") },
            decode: IdentityMapper<Data>(),
            decodeAll: ClosureMapper<Data, [Data]> { [$0] }
        )
        http.freshnessPolicy = .init(usesHeuristics: true)

        var stored = try await http.getEntry(KeyQuery("a")).metadata
        stored.storedAt = clock.now()
        clock.advance(by: .seconds(3601))
        let answer = try await http.getIfModified(KeyQuery("a"), since: stored)

        guard case .notModified(let renewed) = answer else {
            Issue.record("Expected not modified, got \(answer)")
            return
        }
        #expect(renewed.freshUntil == clock.now().addingTimeInterval(3600))
    }

    /// A cache manager on a manual clock, its fetcher over `client`, and `/screen` on `server`.
    private func withFetcher(
        _ route: @escaping @Sendable (ServerRequest) async throws -> ServerReply,
        headers: HTTPHeaders = [:],
        _ body: (CachedFetcher, CacheManager, ManualClock, URL, LoopbackServer) async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([("GET /screen", route)])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let cache = try CacheManager(
            configuration: .init(folder: folder.url.appendingPathComponent("beagle"), clock: clock)
        )
        let client = HTTPClient(configuration: .init(timeout: .seconds(60), headers: headers))
        let url = server.baseURL.appendingPathComponent("screen")
        try await body(cache.fetcher(client: client), cache, clock, url, server)
    }

    @Test func aNoStoreNotModifiedRemovesTheReference() async throws {
        try await withFetcher(Self.route(notModified: ["Cache-Control": "no-store"])) { fetcher, cache, clock, url, _ in
            _ = try await fetcher.fetch(url: url)
            clock.advance(by: .seconds(3601))

            let revalidated = try await fetcher.fetch(url: url)
            #expect(revalidated.origin == .revalidated)
            #expect(revalidated.reference.data == Data("v1".utf8))
            #expect(cache.getReference(identifiedBy: url.absoluteString) == nil)
            #expect(try await fetcher.fetch(url: url).origin == .network)
        }
    }

    /// The client's own `Cache-Control: no-store` (in its configuration's headers) is the request's: nothing stored.
    @Test func aClientsDefaultNoStoreIsHeardByTheFetcher() async throws {
        let route = Self.route(notModified: [:])
        var headers = HTTPHeaders()
        headers["Cache-Control"] = "no-store"
        try await withFetcher(route, headers: headers) { fetcher, cache, _, url, server in
            let first = try await fetcher.fetch(url: url)
            #expect(first.origin == .network)
            #expect(try await fetcher.fetch(url: url).origin == .network)
            #expect(cache.getReference(identifiedBy: url.absoluteString) == nil)
            #expect(server.requestCount(path: "/screen") == 2)
        }
    }
}
