import Foundation
import LoopbackServer
import Strata
import StrataCache
import Testing

/// Lifetime-extension policies and cleaning rules, with a manual clock.
struct BlobCacheLifetimeTests {
    private let start = Date(timeIntervalSince1970: 1_000)

    @Test func policiesComputeTheNewExpiry() {
        let expiresAt = start.addingTimeInterval(100)
        let lifetime = Duration.seconds(100)
        let early = start.addingTimeInterval(10)
        let late = start.addingTimeInterval(95)

        #expect(
            BlobCache.LifetimeExtension.none.extendedExpiry(expiresAt: expiresAt, lifetime: lifetime, now: early) == nil
        )
        let onAccess = BlobCache.LifetimeExtension.onAccess(by: .seconds(200))
        #expect(onAccess.extendedExpiry(expiresAt: expiresAt, lifetime: lifetime, now: early) == early + 200)
        let shortOnAccess = BlobCache.LifetimeExtension.onAccess(by: .seconds(5))
        #expect(shortOnAccess.extendedExpiry(expiresAt: expiresAt, lifetime: lifetime, now: early) == nil)
        let whileRemaining = BlobCache.LifetimeExtension.whileRemaining(share: 0.5)
        #expect(whileRemaining.extendedExpiry(expiresAt: expiresAt, lifetime: lifetime, now: early) == early + 100)
        #expect(whileRemaining.extendedExpiry(expiresAt: expiresAt, lifetime: lifetime, now: late) == nil)
        let nearly = BlobCache.LifetimeExtension.whenNearlyExpired(within: .seconds(10))
        #expect(nearly.extendedExpiry(expiresAt: expiresAt, lifetime: lifetime, now: early) == nil)
        #expect(nearly.extendedExpiry(expiresAt: expiresAt, lifetime: lifetime, now: late) == late + 100)
        let expired = start.addingTimeInterval(100)
        #expect(onAccess.extendedExpiry(expiresAt: expiresAt, lifetime: lifetime, now: expired) == nil)
    }

    /// A lifetime of "forever" given as the largest duration: `Duration.components` trapped on 2⁶³ seconds or more
    /// (the first download, copy-up or extension), and a persistent lifetime past about 3 × 10¹⁰ years was written in
    /// a record its own reader refused (the blob was never served from disk, and cleaning removed it).
    @Test func theLargestLifetimesServeAndNeverTrap() async throws {
        #expect(Duration.seconds(UInt64.max).timeInterval == 0x1p63)
        #expect(Duration.seconds(Int64.min).timeInterval == -0x1p63)
        #expect((Duration.seconds(Int64.min) - .seconds(1)).timeInterval == -0x1p63)
        let forever = BlobCache.LifetimeExtension.onAccess(by: .seconds(UInt64.max))
        #expect(forever.extendedExpiry(expiresAt: start + 1, lifetime: .seconds(UInt64.max), now: start) != nil)
        try await withFixture([("GET /a", reply("alpha"))]) { fixture in
            let cache = try fixture.makeCache(
                ephemeral: .init(initialLifetime: .seconds(UInt64.max), lifetimeExtension: forever),
                persistent: .init(initialLifetime: .seconds(Int64.max), lifetimeExtension: forever)
            )
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .network)
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            cache.purgeEphemeral()
            fixture.clock.advance(by: .seconds(86_400 * 365 * 100))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            #expect(fixture.server.requestCount(path: "/a") == 1)
        }
    }

    @Test func onAccessKeepsAFrequentlyReadBlobInMemory() async throws {
        try await withFixture([("GET /a", reply("alpha"))]) { fixture in
            let cache = try fixture.makeCache(
                ephemeral: .init(initialLifetime: .seconds(60), lifetimeExtension: .onAccess(by: .seconds(60))),
                persistent: .init(initialLifetime: .seconds(100))
            )
            _ = try await cache.fetch(from: fixture.url("a")) as Data

            // Every 50 s a read slides the ephemeral expiry 60 s ahead, past the persistent lifetime.
            for _ in 0..<4 {
                fixture.clock.advance(by: .seconds(50))
                #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            }
            fixture.clock.advance(by: .seconds(61))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .network)
            #expect(fixture.server.requestCount(path: "/a") == 2)
        }
    }

    @Test func withoutExtensionTheSameReadsExpire() async throws {
        try await withFixture([("GET /a", reply("alpha"))]) { fixture in
            let cache = try fixture.makeCache(
                ephemeral: .init(initialLifetime: .seconds(60)),
                persistent: .init(initialLifetime: .seconds(100))
            )
            _ = try await cache.fetch(from: fixture.url("a")) as Data

            fixture.clock.advance(by: .seconds(50))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            fixture.clock.advance(by: .seconds(20))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
            fixture.clock.advance(by: .seconds(40))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .network)
        }
    }

    @Test func whenNearlyExpiredRenewsThePersistentLifetime() async throws {
        try await withFixture([("GET /a", reply("alpha"))]) { fixture in
            let cache = try fixture.makeCache(
                ephemeral: .init(initialLifetime: .seconds(1)),
                persistent: .init(
                    initialLifetime: .seconds(100),
                    lifetimeExtension: .whenNearlyExpired(within: .seconds(20))
                )
            )
            _ = try await cache.fetch(from: fixture.url("a")) as Data

            // A read at 90 s (10 s left) renews the blob for 100 s from then: fresh until 190 s.
            fixture.clock.advance(by: .seconds(90))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
            fixture.clock.advance(by: .seconds(95))
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
            #expect(fixture.server.requestCount(path: "/a") == 1)
        }
    }

    @Test func whileRemainingRenewsOnlyEarlyReads() async throws {
        try await withFixture([("GET /a", reply("alpha"))]) { fixture in
            let cache = try fixture.makeCache(
                ephemeral: .init(
                    initialLifetime: .seconds(100),
                    lifetimeExtension: .whileRemaining(share: 0.5)
                ),
                persistent: .init(initialLifetime: .seconds(1_000))
            )
            _ = try await cache.fetch(from: fixture.url("a")) as Data

            fixture.clock.advance(by: .seconds(40))  // 60 % left: renewed until 140 s
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            fixture.clock.advance(by: .seconds(90))  // at 130 s, 10 % left: not renewed
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .memory)
            fixture.clock.advance(by: .seconds(11))  // 141 s
            #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
        }
    }

    @Test func defaultCleaningEmptiesMemoryAndKeepsFreshBlobsOnDisk() async throws {
        try await withFixture([("GET /short", reply("s")), ("GET /long", reply("l"))]) { fixture in
            let cache = try fixture.makeCache(persistent: .init(initialLifetime: .seconds(100)))
            _ = try await cache.fetch(from: fixture.url("long")) as Data
            fixture.clock.advance(by: .seconds(50))
            _ = try await cache.fetch(from: fixture.url("short")) as Data
            #expect(cache.ephemeralCount == 2)

            // When: memory pressure, then termination once "long" has expired on disk
            cache.purgeEphemeral()
            fixture.clock.advance(by: .seconds(60))
            try cache.cleanPersistent()

            // Then: memory is empty (ephemeral cleans all), disk kept the fresh blob only
            #expect(cache.ephemeralCount == 0)
            #expect(cache.persistentCount == 1)
            #expect(try fixture.blobFiles().count == 1)
            #expect(try await cache.fetchWithLayer(from: fixture.url("short")).origin == .file)
            #expect(try await cache.fetchWithLayer(from: fixture.url("long")).origin == .network)
        }
    }

    @Test func otherCleaningRulesApplyPerLayer() async throws {
        try await withFixture([("GET /short", reply("s")), ("GET /long", reply("l"))]) { fixture in
            let cache = try fixture.makeCache(
                ephemeral: .init(initialLifetime: .seconds(100), cleaning: .expiredOnly),
                persistent: .init(cleaning: .all)
            )
            _ = try await cache.fetch(from: fixture.url("long")) as Data
            fixture.clock.advance(by: .seconds(50))
            _ = try await cache.fetch(from: fixture.url("short")) as Data
            fixture.clock.advance(by: .seconds(60))

            try cache.clean()

            #expect(cache.ephemeralCount == 1)
            #expect(cache.persistentCount == 0)
            #expect(try fixture.blobFiles().isEmpty)
            #expect(try await cache.fetchWithLayer(from: fixture.url("short")).origin == .memory)
        }
    }
}
