import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataNetwork
import StrataTesting
import Testing

/// A part of a resource is not the resource: a `CachedFetcher` request that carries `Range` goes past the cache.
struct CacheManagerFetcherRangeTests {
    /// A request for the first 10 bytes, whether the stored whole is valid or stale, is sent as it is (no hash), its
    /// `206` handed back, and the whole reference stays as it was. (Before, a valid reference answered the range
    /// with the whole body as `.cache`; a stale one sent its hash with the range, and the `206`, not storable,
    /// removed the whole reference.)
    @Test(arguments: [false, true])
    func aRangeRequestNeitherReadsNorReplacesTheReference(stale: Bool) async throws {
        // Given a stored whole screen, and a server that answers a range with a 206
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let whole = Data((0..<100).map { UInt8($0) })
        let server = try await LoopbackServer.start([
            (
                "GET /screen",
                { request in
                    if request.headers["range"] == "bytes=0-9" {
                        let headers = ["ETag": "\"v1\"", "Content-Range": "bytes 0-9/100"]
                        return ServerReply(status: 206, headers: headers, body: whole.prefix(10))
                    }
                    if request.headers["if-none-match"] == "\"v1\"" {
                        return ServerReply(status: 304, headers: ["ETag": "\"v1\""])
                    }
                    return ServerReply(status: 200, headers: ["ETag": "\"v1\""], body: whole)
                }
            )
        ])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let cache = try CacheManager(
            configuration: .init(folder: folder.url.appendingPathComponent("beagle"), clock: clock)
        )
        let fetcher = cache.fetcher(client: try makeClient(folder))
        let url = server.baseURL.appendingPathComponent("screen")
        _ = try await fetcher.fetch(url: url)
        if stale { clock.advance(by: .seconds(400)) }
        let stored = try #require(cache.getReference(identifiedBy: url.absoluteString))

        // When the first 10 bytes are asked for
        var request = HTTPRequest(.get, url: url)
        request.headers["Range"] = "bytes=0-9"
        let part = try await fetcher.fetch(request, identifier: url.absoluteString)

        // Then the server was asked without the hash, the part is the answer, and the whole reference stays
        #expect(part.origin == .network)
        #expect(part.reference.data == whole.prefix(10))
        #expect(server.requestCount(path: "/screen") == 2)
        #expect(server.requests.last?.headers["if-none-match"] == nil)
        #expect(cache.getReference(identifiedBy: url.absoluteString) == stored)
        let next = try await fetcher.fetch(url: url)
        #expect(next.origin == (stale ? .revalidated : .cache))
        #expect(next.reference.data == whole)
    }
}
