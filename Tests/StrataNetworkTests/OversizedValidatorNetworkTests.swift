import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

/// A server's `ETag` and `Last-Modified` are kept beside a cached value, outside every size limit (a memory cache's
/// cost counts the value alone): a `NetworkGetDataSource` reports only validators a cache may keep, so 60 KiB of
/// entity tag per key is not held beside each value of a cache in front of it.
struct OversizedValidatorNetworkTests {
    static let hugeETag = "\"" + String(repeating: "e", count: 60_000) + "\""
    static let hugeLastModified = "Tue, 14 Nov 2023 22:13:20 GMT" + String(repeating: " x", count: 30_000)

    @Test(.timeLimit(.minutes(1)))
    func aCacheInFrontOfTheNetworkKeepsNoOversizedValidator() async throws {
        // Given a server answering a small body with huge validators
        let headers = ["ETag": Self.hugeETag, "Last-Modified": Self.hugeLastModified, "Cache-Control": "max-age=60"]
        let server = try await LoopbackServer.start([
            ("GET /item", { _ in ServerReply(status: 200, headers: headers, body: Data(#"{"name":"a"}"#.utf8)) })
        ])
        defer { Task { await server.stop() } }
        let cache = MemoryDataSource<Item>()
        let network = NetworkGetDataSource<Item>(client: makeClient()) { _ in
            HTTPRequest(baseURL: server.baseURL, path: "item")
        }
        let repository = CacheRepository(main: network, cache: cache)

        // When the value is read through the cache
        let item = try await repository.get(KeyQuery("item"), operation: .cacheSync)

        // Then it is cached without the validators, which the source does not report either
        #expect(item == Item(name: "a"))
        let stored = try #require(cache.entry(forKey: "item"))
        #expect(stored.metadata.eTag == nil)
        #expect(stored.metadata.lastModified == nil)
        #expect(stored.metadata.freshUntil != nil, "the rest of the metadata is kept")
        let entry = try await network.getEntry(KeyQuery("item"))
        #expect(entry.metadata.eTag == nil)
        #expect(entry.metadata.lastModified == nil)
    }

    @Test(.timeLimit(.minutes(1)))
    func aNotModifiedWithAnOversizedLastModifiedRenewsWithoutIt() async throws {
        // Given a server answering a conditional GET with a 304 whose Last-Modified is huge
        let server = try await LoopbackServer.start([
            (
                "GET /item",
                { _ in
                    ServerReply(
                        status: 304,
                        headers: [
                            "ETag": "\"v1\"", "Last-Modified": Self.hugeLastModified, "Cache-Control": "max-age=60",
                        ]
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let network = NetworkGetDataSource<Item>(client: makeClient()) { _ in
            HTTPRequest(baseURL: server.baseURL, path: "item")
        }

        // When a stored entry tagged "v1" is revalidated
        let stored = EntryMetadata(eTag: "\"v1\"", lastModified: "Mon, 13 Nov 2023 22:13:20 GMT")
        let answer = try await network.getIfModified(KeyQuery("item"), since: stored)

        // Then it is renewed with the tag the 304 confirmed, and no Last-Modified a cache would hold unbounded
        guard case .notModified(let renewed) = answer else {
            Issue.record("expected a 304, got \(answer)")
            return
        }
        #expect(renewed.eTag == "\"v1\"")
        #expect(renewed.lastModified.map(\.utf8.count) == nil)
    }
}

/// A stored entry's dates come from a store a damaged or planted file can fill with any finite numbers: the lifetime
/// a 304 without `Cache-Control` keeps is bounded as every HTTP lifetime is, so two dates far apart make no infinite
/// freshness date (which every cache refuses, failing the read's cache sync at each revalidation).
struct RenewalFromDistantDatesTests {
    @Test(.timeLimit(.minutes(1)))
    func aNotModifiedKeepsAFiniteLifetimeFromDatesFarApart() async throws {
        let server = try await LoopbackServer.start([
            ("GET /item", { _ in ServerReply(status: 304, headers: ["ETag": "\"v1\""]) })
        ])
        defer { Task { await server.stop() } }
        let network = NetworkGetDataSource<Item>(client: makeClient()) { _ in
            HTTPRequest(baseURL: server.baseURL, path: "item")
        }
        var stored = EntryMetadata(eTag: "\"v1\"")
        stored.storedAt = Date(timeIntervalSince1970: -1e308)
        stored.freshUntil = Date(timeIntervalSince1970: 1e308)

        let answer = try await network.getIfModified(KeyQuery("item"), since: stored)

        guard case .notModified(let renewed) = answer else {
            Issue.record("expected a 304, got \(answer)")
            return
        }
        let freshUntil = try #require(renewed.freshUntil)
        #expect(freshUntil.timeIntervalSince1970.isFinite)
        #expect(freshUntil.timeIntervalSinceNow <= 2_147_483_648)
    }
}
