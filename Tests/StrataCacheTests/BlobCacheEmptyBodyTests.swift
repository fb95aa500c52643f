import Foundation
import LoopbackServer
import Strata
import Testing

@testable import StrataCache

/// The memory layer's byte limit bounds empty bodies too: each blob counts its entry's overhead beside its bytes.
/// Before, a `204` or an empty `200` cost nothing, and a long-lived process fetching ever new URLs kept every one.
struct BlobCacheEmptyBodyTests {
    @Test(.timeLimit(.minutes(1)))
    func emptyBodiesAreBoundedByTheMemoryLayersByteLimit() async throws {
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            ServerReply(status: request.path.hasPrefix("/none") ? 204 : 200, headers: ["Cache-Control": "max-age=600"])
        }
        try await withFixture([("GET /*", route)]) { fixture in
            let cache = try fixture.makeCache(ephemeral: .init(costLimit: 8 * Blob.entryOverhead))
            for index in 0..<40 {
                _ = try await cache.fetch(from: fixture.url("empty-\(index)")) as Data
                _ = try await cache.fetch(from: fixture.url("none-\(index)")) as Data
            }
            #expect(cache.ephemeralCount <= 8)
        }
    }
}
