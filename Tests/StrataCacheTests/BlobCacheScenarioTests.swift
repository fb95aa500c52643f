import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataTestSupport
import Testing

/// The three scenarios of Kumo's BlobCache documentation, counted on the server.
struct BlobCacheScenarioTests {
    @Test func scenario1MissInBothLayersDownloadsAndStoresInBoth() async throws {
        try await withFixture([("GET /a", reply("alpha"))]) { fixture in
            let cache = try fixture.makeCache()

            // When: the first fetch misses both layers
            let first = try await cache.fetchWithLayer(from: fixture.url("a"))

            // Then: one download, stored in memory and on disk
            #expect(first.origin == .network)
            #expect(first.data == Data("alpha".utf8))
            #expect(fixture.server.requestCount(path: "/a") == 1)
            #expect(cache.ephemeralCount == 1)
            #expect(cache.persistentCount == 1)
            let second = try await cache.fetchWithLayer(from: fixture.url("a"))
            #expect(second.origin == .memory)
            #expect(fixture.server.requestCount(path: "/a") == 1)
        }
    }

    @Test func scenario2PersistentHitIsCopiedIntoAFreshEphemeralLayer() async throws {
        try await withFixture([("GET /a", reply("alpha"))]) { fixture in
            // Given: a previous "process" downloaded the blob
            do {
                let earlier = try fixture.makeCache()
                _ = try await earlier.fetch(from: fixture.url("a")) as Data
            }

            // When: a new cache on the same folder fetches it
            let cache = try fixture.makeCache()
            #expect(cache.ephemeralCount == 0)
            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))

            // Then: the disk answers, the blob is copied up, the server saw one request in all
            #expect(fetched.origin == .file)
            #expect(fetched.data == Data("alpha".utf8))
            #expect(cache.ephemeralCount == 1)
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            #expect(fixture.server.requestCount(path: "/a") == 1)
        }
    }

    @Test func scenario3ExpiredEphemeralEntryFallsBackToValidPersistentEntry() async throws {
        try await withFixture([("GET /a", reply("alpha"))]) { fixture in
            let cache = try fixture.makeCache(
                ephemeral: .init(initialLifetime: .seconds(60), lifetimeExtension: .none),
                persistent: .init(initialLifetime: .seconds(3_600))
            )
            _ = try await cache.fetch(from: fixture.url("a")) as Data

            // When: the ephemeral lifetime has passed, the persistent one has not
            fixture.clock.advance(by: .seconds(61))
            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))

            // Then: the disk answers and the blob is back in memory, with no new request
            #expect(fetched.origin == .file)
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            #expect(fixture.server.requestCount(path: "/a") == 1)

            // And: once the persistent lifetime has passed too, the network answers again
            fixture.clock.advance(by: .seconds(3_600))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .network)
            #expect(fixture.server.requestCount(path: "/a") == 2)
        }
    }

    @Test func relativeURLsResolveAgainstTheBaseURL() async throws {
        try await withFixture([("GET /images/logo", reply("logo"))]) { fixture in
            let cache = try fixture.makeCache()

            let data: Data = try await cache.fetch(from: try #require(URL(string: "images/logo")))

            #expect(data == Data("logo".utf8))
            #expect(cache.contains(fixture.url("images/logo")))
            #expect(try cache.cached(from: try #require(URL(string: "images/logo"))) == Data("logo".utf8))
        }
    }

    @Test func cachedNeverTouchesTheNetwork() async throws {
        try await withFixture([("GET /a", reply("alpha"))]) { fixture in
            let cache = try fixture.makeCache()

            #expect(try cache.cached(from: fixture.url("a")) == nil)
            #expect(!cache.contains(fixture.url("a")))
            #expect(fixture.server.requestCount() == 0)
        }
    }

    @Test func twoLiveCachesCannotShareAFolder() async throws {
        try await withFixture([]) { fixture in
            let cache = try fixture.makeCache()

            let error = await strataError { _ = try fixture.makeCache() }

            #expect(error?.code == .alreadyInUse)
            _ = cache
        }
    }
}
