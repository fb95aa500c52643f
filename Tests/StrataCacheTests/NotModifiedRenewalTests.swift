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
