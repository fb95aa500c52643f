import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataNetwork
import StrataTesting

/// A unique temporary folder, a manual clock and a loopback server for one BlobCache test.
struct BlobCacheFixture {
    let folder: URL
    /// Holds the folder: it is removed when the fixture is released, even by a test that fails before `tearDown()`.
    private let temporary: TemporaryFolder
    let clock = ManualClock()
    let server: LoopbackServer

    init(_ routes: [(String, @Sendable (ServerRequest) async throws -> ServerReply)]) async throws {
        temporary = try TemporaryFolder(prefix: "strata-blobcache")
        folder = temporary.url
        server = try await LoopbackServer.start(routes)
    }

    /// A cache on the fixture's folder, clock and server.
    func makeCache(
        ephemeral: BlobCache.EphemeralLayer = .init(),
        persistent: BlobCache.PersistentLayer = .init(),
        servesStaleOnError: Bool = false,
        plugins: [any StrataPlugin] = [],
        transport: any HTTPTransport = URLSessionTransport(),
        freshnessPolicy: HTTPFreshness.Policy = .privateCache,
        headers: HTTPHeaders = [:]
    ) throws -> BlobCache {
        var persistent = persistent
        persistent.location = .url(folder)
        persistent.identifier = "blobs"
        let client = HTTPClient(transport: transport, configuration: .init(timeout: .seconds(30), headers: headers))
        return try BlobCache(
            using: client,
            baseURL: server.baseURL,
            configuration: .init(
                ephemeral: ephemeral,
                persistent: persistent,
                servesStaleOnError: servesStaleOnError,
                clock: clock,
                freshnessPolicy: freshnessPolicy,
                plugins: plugins
            )
        )
    }

    /// A URL relative to the server.
    func url(_ path: String) -> URL {
        server.baseURL.appendingPathComponent(path)
    }

    /// The blob files of the persistent layer.
    func blobFiles() throws -> [URL] {
        let blobs = folder.appendingPathComponent("blobs")
        return try FileManager.default.contentsOfDirectory(atPath: blobs.path)
            .filter { $0.hasSuffix(".strata") }
            .map { blobs.appendingPathComponent($0) }
    }

    func tearDown() async {
        await server.stop()
        temporary.remove()
    }
}

/// A route that answers `body` with the given headers and counts nothing itself (the server counts).
func reply(_ body: String, headers: [String: String] = [:], status: Int = 200)
    -> @Sendable (ServerRequest) async throws -> ServerReply
{
    { _ in ServerReply(status: status, headers: headers, body: Data(body.utf8)) }
}

/// Runs `body` with a fixture and tears it down whether or not `body` throws.
func withFixture(
    _ routes: [(String, @Sendable (ServerRequest) async throws -> ServerReply)],
    _ body: (BlobCacheFixture) async throws -> Void
) async throws {
    let fixture = try await BlobCacheFixture(routes)
    do {
        try await body(fixture)
    } catch {
        await fixture.tearDown()
        throw error
    }
    await fixture.tearDown()
}
