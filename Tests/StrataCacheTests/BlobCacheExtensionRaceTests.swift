import Foundation
import LoopbackServer
import Strata
import StrataTestSupport
import Synchronization
import Testing

@testable import StrataCache

/// A lifetime extension writes back the blob it read only while that blob is still the one stored: a newer version
/// stored meanwhile keeps its bytes and its own lifetime.
struct BlobCacheExtensionRaceTests {
    /// A memory hit that read v1, and puts it back extended by an hour after a download stored v2 in memory (held
    /// at its clock reading, between the two), leaves v2 as it was. (Before, v1 went back over v2, fresh for an
    /// hour: the put-back was kept out only by removals, not by newer blobs.)
    @Test(.timeLimit(.minutes(1))) func anExtendedMemoryHitDoesNotReplaceANewerBlob() async throws {
        // Given v1 in memory, extended by an hour on every hit
        let folder = try TemporaryFolder(prefix: "strata-blobcache")
        defer { folder.remove() }
        let clock = ParkingClock()
        var persistent = BlobCache.PersistentLayer()
        persistent.location = .url(folder.url)
        persistent.identifier = "blobs"
        let cache = try BlobCache(
            baseURL: URL(string: "https://example.com")!,
            configuration: .init(
                ephemeral: .init(initialLifetime: .seconds(60), lifetimeExtension: .onAccess(by: .seconds(3_600))),
                persistent: persistent,
                clock: clock
            )
        )
        let key = "https://example.com/a"
        let now = clock.now()
        let v1 = CachedBlob(data: Data("v1".utf8), expiresAt: now.addingTimeInterval(60), lifetime: .seconds(60))
        cache.putInMemory(v1, forKey: key, now: now)

        // When a hit reads v1 and, held at its clock reading before the put-back, a download stores v2 in memory
        // (on a queue of its own: a parked thread of the task pool would starve the other tests)
        clock.arm(skipping: 1)
        let read = Locked<Data?>(nil)
        let hit = BackgroundWork { read.withLock { $0 = cache.ephemeralHit(key) } }
        try #require(await clock.waitUntilParked(), "the hit never read the clock")
        let v2 = CachedBlob(data: Data("v2".utf8), expiresAt: now.addingTimeInterval(30), lifetime: .seconds(30))
        cache.putInMemory(v2, forKey: key, now: now, readAfter: cache.removals.mark(key))
        clock.release()
        try #require(await hit.ended(within: 30))
        #expect(read.withLock { $0 } == Data("v1".utf8))

        // Then v2 stays, with its own expiry
        let stored = cache.memory.value(forKey: key)
        #expect(stored?.data == Data("v2".utf8))
        #expect(stored?.expiresAt == v2.expiresAt)
    }

    /// A disk hit's extension computed from a read made before a `304` renewed the same bytes with new directives
    /// (`must-revalidate`) does not write the older record back over them. (Before, the renewal was checked by content
    /// hash only, and the older record's `stale-if-error` came back.)
    @Test func anExtensionFromAnOlderReadDoesNotUndoARenewal() async throws {
        let served = Atomic(0)
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            guard served.add(1, ordering: .relaxed).newValue > 1 else {
                let headers = ["ETag": "\"v1\"", "Cache-Control": "max-age=60, stale-if-error=600"]
                return ServerReply(status: 200, headers: headers, body: Data("v1".utf8))
            }
            return ServerReply(
                status: 304,
                headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60, must-revalidate"]
            )
        }
        try await withFixture([("GET /a", route)]) { fixture in
            // Given a blob on disk, read (as a hit reads it before extending it)
            let cache = try fixture.makeCache()
            let url = fixture.url("a")
            _ = try await cache.fetch(from: url) as Data
            let read = try #require(cache.blobs.info(forKey: url.absoluteString))
            var extended = try #require(cache.record(for: read))

            // When a 304 renews it with `must-revalidate`, and then the extension of the older read is written
            fixture.clock.advance(by: .seconds(70))
            cache.memory.removeAll()
            #expect(try await cache.fetchWithLayer(from: url).origin == .revalidated)
            extended.freshUntil = fixture.clock.now().addingTimeInterval(3_600)
            _ = try cache.renew(extended, of: read)

            // Then the renewal's record stands
            let stored = try #require(cache.blobs.info(forKey: url.absoluteString).flatMap(cache.record(for:)))
            #expect(stored.mustRevalidate)
            #expect(stored.staleIfError == nil)
        }
    }
}
