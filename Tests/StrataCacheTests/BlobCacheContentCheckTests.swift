import Foundation
import LoopbackServer
import Testing

@testable import StrataCache

/// The persistent layer's content check: a blob damaged on disk is refetched when it is on, served when off.
struct BlobCacheContentCheckTests {
    @Test(arguments: [true, false])
    func aBlobDamagedOnDiskIsRefetchedOnlyWhenContentIsVerified(verifies: Bool) async throws {
        let body = Data(String(repeating: "x", count: 1_000).utf8)
        try await withFixture([("GET /a", reply(String(repeating: "x", count: 1_000)))]) { fixture in
            let persistent = BlobCache.PersistentLayer(verifiesContent: verifies)
            do {
                let earlier = try fixture.makeCache(persistent: persistent)
                _ = try await earlier.fetch(from: fixture.url("a")) as Data
            }
            // Given: the blob's bytes are damaged on disk, its length kept
            let file = try #require(try fixture.blobFiles().first)
            let handle = try FileHandle(forWritingTo: file)
            try handle.seek(toOffset: 10)
            try handle.write(contentsOf: Data("damage".utf8))
            try handle.close()

            // When: a new cache fetches it
            let cache = try fixture.makeCache(persistent: persistent)
            let fetched = try await cache.fetchWithLayer(from: fixture.url("a"))

            // Then: verified, the damage is a miss and the blob is downloaded again; unverified, the bytes on
            // disk are served as they are
            if verifies {
                #expect(fetched.origin == .network)
                #expect(fetched.data == body)
                #expect(fixture.server.requestCount(path: "/a") == 2)
            } else {
                var damaged = body
                damaged.replaceSubrange(10..<16, with: Data("damage".utf8))
                #expect(fetched.origin == .file)
                #expect(fetched.data == damaged)
                #expect(fixture.server.requestCount(path: "/a") == 1)
            }
        }
    }

    @Test func theContentCheckIsOnByDefault() {
        #expect(BlobCache.PersistentLayer().verifiesContent)
        #expect(BlobCache.Configuration().persistent.verifiesContent)
    }
}
