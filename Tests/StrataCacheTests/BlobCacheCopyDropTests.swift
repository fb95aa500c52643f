import Foundation
import LoopbackServer
import Strata
import StrataTestSupport
import Testing

@testable import StrataCache

/// A blob main no longer has is dropped from the tiers without a call the tiers refuse: a BlobCache keeps no list
/// answer, so no tier is asked to forget one.
struct BlobCacheCopyDropTests {
    /// Before, the drop of the stale copy after the 404 also sent `delete(StoredListAnswerQuery)` to the file tier,
    /// which refused it: plugins saw a failed delete (a logger's error line, a metric's failure) the repository ignored.
    @Test func aBlobMainNoLongerHasIsDroppedWithNoFailingDelete() async throws {
        let served = Locked(0)
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { _ in
            let first = served.withLock { count in
                defer { count += 1 }
                return count == 0
            }
            guard first else { return ServerReply(status: 404, headers: [:], body: Data()) }
            return ServerReply(
                status: 200,
                headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"],
                body: Data("alpha".utf8)
            )
        }
        try await withFixture([("GET /a", route)]) { fixture in
            let spy = BlobCacheChainTests.SpyPlugin()
            let cache = try fixture.makeCache(plugins: [spy])
            _ = try await cache.fetch(from: fixture.url("a")) as Data
            cache.purgeEphemeral()
            _ = spy.take()

            fixture.clock.advance(by: .seconds(61))
            await #expect(throws: StrataError.self) { _ = try await cache.fetch(from: fixture.url("a")) as Data }

            let calls = spy.take()
            #expect(calls.contains("file delete ok"), "the stale copy went: \(calls)")
            #expect(!calls.contains { $0.contains("delete") && !$0.hasSuffix("ok") }, "no failed delete: \(calls)")
        }
    }
}
