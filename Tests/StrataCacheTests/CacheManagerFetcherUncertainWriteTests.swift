import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

/// An unsafe request through a `CachedFetcher` whose outcome is unknown (the caller cancelled it after it left, a
/// gateway lost its answer) may have changed the resource: the GET's reference is marked stale, as after one that
/// succeeded, so the next GET revalidates it. One the server refused leaves the reference as it was.
struct CacheManagerFetcherUncertainWriteTests {
    /// A valid reference of `/screen` in a cache manager on a manual clock, its fetcher, and the server.
    private struct Screen {
        let server: LoopbackServer
        let cache: CacheManager
        let fetcher: CachedFetcher
        var url: URL { server.baseURL.appendingPathComponent("screen") }

        /// Whether the stored reference is valid. (Take it out before an expectation: a failed one reflects what it
        /// names, and reflecting the manager traps on its locks.)
        var isValid: Bool {
            cache.getReference(identifiedBy: url.absoluteString).map(cache.isValid(reference:)) == true
        }
    }

    /// Runs `body` with a ``Screen`` whose `POST /screen` answers by `post`; the server and the folder go afterwards.
    private func withScreen(
        post: @escaping @Sendable (ServerRequest) async -> ServerReply,
        _ body: (Screen) async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let resource = VersionedResource(body: Data("get".utf8), eTag: "\"v1\"")
        let server = try await LoopbackServer.start([
            ("GET /screen", { request in resource.reply(request) }),
            ("POST /screen", { request in await post(request) }),
        ])
        defer { Task { await server.stop() } }
        let cache = try CacheManager(
            configuration: .init(folder: folder.url.appendingPathComponent("beagle"), clock: ManualClock())
        )
        let screen = Screen(server: server, cache: cache, fetcher: cache.fetcher(client: try makeClient(folder)))
        _ = try await screen.fetcher.fetch(url: screen.url)
        let isValid = screen.isValid
        #expect(isValid)
        try await body(screen)
    }

    /// Before, the reference stayed valid: the next GET served the body from before the POST for its whole lifetime.
    @Test(.timeLimit(.minutes(1)))
    func aPostCancelledAfterItLeftMarksTheReferenceStale() async throws {
        // Given a POST the server holds once it has arrived
        let (arrived, release) = (Gate(), Gate())
        defer { release.open() }
        try await withScreen(post: { _ in
            arrived.open()
            await release.wait()
            return ServerReply(status: 201)
        }) { screen in
            let post = Task { try await screen.fetcher.fetch(HTTPRequest(.post, url: screen.url)) }
            await arrived.wait()

            // When the caller cancels it
            post.cancel()
            let error = await strataError { _ = try await post.value }
            release.open()

            // Then it is cancelled, and the reference is stale: the next GET revalidates it
            let isValid = screen.isValid
            #expect(error?.code == .cancelled, "\(String(describing: error))")
            #expect(!isValid)
            let next = try await screen.fetcher.fetch(url: screen.url).origin
            #expect(next == .revalidated)
        }
    }

    /// A gateway's `502` or `504` may hide a POST the server carried out (``Strata/StrataError/mayHaveTakenEffect``):
    /// before, the reference stayed valid. A `409` refused it: the reference stays valid.
    @Test(arguments: [(502, true), (504, true), (409, false)])
    func aPostWhoseOutcomeIsUnknownMarksTheReferenceStale(status: Int, marksStale: Bool) async throws {
        try await withScreen(post: { _ in ServerReply(status: status) }) { screen in
            let error = await strataError { _ = try await screen.fetcher.fetch(HTTPRequest(.post, url: screen.url)) }

            let isValid = screen.isValid
            #expect(error?.mayHaveTakenEffect == marksStale, "\(String(describing: error))")
            #expect(isValid == !marksStale)
        }
    }
}
