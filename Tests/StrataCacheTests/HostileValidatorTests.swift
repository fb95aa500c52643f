import Foundation
import LoopbackServer
import Strata
import StrataFile
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataCache

/// Validators a server sent (`ETag`, `Last-Modified`) that cannot be sent back as they are — garbage, or a control
/// character a request refuses — are never sent back by a `FileCacheProvider` or a `CachedFetcher`: a download of
/// the key goes on working instead of failing with `invalidArgument` for as long as the entry lives.
struct HostileValidatorTests {
    private func makeProvider(_ folder: TemporaryFolder) throws -> FileCacheProvider {
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: ManualClock())
        )
        return try FileCacheProvider(store: store)
    }

    @Test(
        "A provider never sends back a stored validator that is garbage or holds a control character",
        arguments: ["\"v\u{1}1\"", "v1"]
    )
    func aProviderSendsBackNoValidatorThatCannotBeSent(eTag: String) async throws {
        // Given an entry stored (as earlier versions stored a download) with the server's garbage validators
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let body = pattern(count: 1_000)
        let server = try await startServer(VersionedResource(body: body, eTag: eTag))
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder)
        let options = FileDataSource.EntryOptions(eTag: eTag, lastModified: "Tue, 14 Nov 2023\u{1} 22:13:20 GMT")
        try provider.store.setValue(Data("old".utf8), forKey: "k", options: options)
        let service = try assetDownload(from: server, through: provider, key: "k", folder: folder)

        // When the key is downloaded again
        let headers = provider.headerValues(for: "k")
        let second = try await service.downloadAsync()

        // Then no validator is sent: the server answers 200 and the download is stored again
        #expect(headers.isEmpty, "\(headers)")
        #expect(second.origin == .network)
        #expect(try Data(contentsOf: second.result) == body)
        #expect(server.requestCount(path: "/asset") == 1)
        #expect(server.requests.last?.headers["if-none-match"] == nil)
        #expect(server.requests.last?.headers["if-modified-since"] == nil)
    }

    @Test func aFetcherNeverSendsBackAHashHoldingAControlCharacter() async throws {
        // Given a reference whose hash is an ETag holding a control character, stale
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let server = try await LoopbackServer.start([
            ("GET /screen", reply("screen", headers: ["ETag": "\"s\u{1}1\"", "Cache-Control": "max-age=10"]))
        ])
        defer { Task { await server.stop() } }
        let manager = try CacheManager(folder: folder.url.appendingPathComponent("beagle"), clock: clock)
        let fetcher = manager.fetcher(client: HTTPClient(configuration: .init(timeout: .seconds(30))))
        let url = server.baseURL.appendingPathComponent("screen")
        _ = try await fetcher.fetch(url: url)
        clock.advance(by: .seconds(11))

        // When it is fetched again
        let second = try await fetcher.fetch(url: url)

        // Then the hash is not sent: the server answers 200, which replaces the reference
        #expect(second.origin == .network)
        #expect(second.reference.data == Data("screen".utf8))
        #expect(server.requestCount(path: "/screen") == 2)
        #expect(server.requests.last?.headers["if-none-match"] == nil)
    }
}

/// Validators are the one part of a response kept beside a blob that no size limit counted: a server sending
/// 60 KiB `ETag` and `Last-Modified` values with a one-byte body made each entry 120 KiB of disk, and of memory in
/// the store's index, outside `maxSize`. Only validators that can serve are kept: an entity tag of at most
/// `ConditionalHeaders.maximumStoredEntityTagLength` bytes, a `Last-Modified` that is an HTTP date.
struct OversizedValidatorTests {
    static let hugeETag = "\"" + String(repeating: "e", count: 60_000) + "\""
    static let hugeLastModified = "Tue, 14 Nov 2023 22:13:20 GMT" + String(repeating: " x", count: 30_000)

    @Test func aBlobCacheKeepsNoOversizedValidator() async throws {
        // Given a server answering a one-byte body with huge validators
        let headers = ["ETag": Self.hugeETag, "Last-Modified": Self.hugeLastModified]
        try await withFixture([("GET /a", reply("a", headers: headers))]) { fixture in
            let cache = try fixture.makeCache()

            // When the blob is fetched
            let data = try await cache.fetch(from: fixture.url("a"))

            // Then it is stored without the validators: its file holds the byte and little else
            #expect(data == Data("a".utf8))
            let info = try #require(cache.blobs.info(forKey: fixture.url("a").absoluteString))
            #expect(info.eTag.map(\.utf8.count) == nil)
            #expect(info.lastModified.map(\.utf8.count) == nil)
            let files = try fixture.blobFiles()
            #expect(files.count == 1)
            let size = try files.first.map { try FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int }
            #expect((size ?? nil).map { $0 < 4_096 } == true, "\(String(describing: size))")
        }
    }

    @Test func aFetcherHashesTheBodyInsteadOfKeepingAnOversizedETag() async throws {
        // Given a server answering a small body with a huge ETag
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([("GET /screen", reply("screen", headers: ["ETag": Self.hugeETag]))]
        )
        defer { Task { await server.stop() } }
        let manager = try CacheManager(folder: folder.url.appendingPathComponent("beagle"), clock: ManualClock())
        let fetcher = manager.fetcher(client: HTTPClient(configuration: .init(timeout: .seconds(30))))

        // When it is fetched
        let fetched = try await fetcher.fetch(url: server.baseURL.appendingPathComponent("screen"))

        // Then the reference's hash is the body's (32 hexadecimal digits), not the 60 KiB tag
        #expect(fetched.reference.data == Data("screen".utf8))
        #expect(fetched.reference.hash.utf8.count == 32, "\(fetched.reference.hash.prefix(40))")
    }

    @Test func aBlobCacheKeepsValidatorsThatServe() async throws {
        // Given a server answering with an ordinary ETag and Last-Modified
        let headers = ["ETag": "W/\"v-1\"", "Last-Modified": "Tue, 14 Nov 2023 22:13:20 GMT"]
        try await withFixture([("GET /a", reply("a", headers: headers))]) { fixture in
            let cache = try fixture.makeCache()

            // When the blob is fetched
            _ = try await cache.fetch(from: fixture.url("a"))

            // Then both are kept as sent
            let info = try #require(cache.blobs.info(forKey: fixture.url("a").absoluteString))
            #expect(info.eTag == "W/\"v-1\"")
            #expect(info.lastModified == "Tue, 14 Nov 2023 22:13:20 GMT")
        }
    }

    @Test func aProviderKeepsNoOversizedValidator() async throws {
        // Given a server answering a one-byte body with huge validators
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([
            ("GET /asset", reply("a", headers: ["ETag": Self.hugeETag, "Last-Modified": Self.hugeLastModified]))
        ])
        defer { Task { await server.stop() } }
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: ManualClock())
        )
        let provider = try FileCacheProvider(store: store)
        let service = try assetDownload(from: server, through: provider, key: "k", folder: folder)

        // When it is downloaded
        let result = try await service.downloadAsync()

        // Then the download is stored without them
        #expect(try Data(contentsOf: result.result) == Data("a".utf8))
        #expect(store.info(forKey: "k")?.eTag.map(\.utf8.count) == nil)
        #expect(store.info(forKey: "k")?.lastModified.map(\.utf8.count) == nil)
    }
}

/// A `304` whose `ETag` names another version than the one the request sent is not about the stored file (RFC 9111,
/// section 4.3.4): a `FileCacheProvider` labelled its old bytes with the new tag, so every later revalidation was
/// answered `304` and the new version never came. The client now asks once more without conditions.
struct MismatchedNotModifiedTests {
    @Test func aNotModifiedForAnotherVersionFetchesThatVersion() async throws {
        // Given a stored download of v1, and a server that has moved on to v2 and answers any conditional request
        // 304 with v2's tag
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let version = Locked("v1")
        let server = try await LoopbackServer.start([
            (
                "GET /asset",
                { request in
                    let current = version.withLock { $0 }
                    if request.headers["if-none-match"] != nil, current == "v2" {
                        return ServerReply(status: 304, headers: ["ETag": "\"v2\""])
                    }
                    return ServerReply(status: 200, headers: ["ETag": "\"\(current)\""], body: Data(current.utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: ManualClock())
        )
        let provider = try FileCacheProvider(store: store)
        let service = try assetDownload(from: server, through: provider, key: "k", folder: folder)
        _ = try await service.downloadAsync()

        // When the key is downloaded again
        version.withLock { $0 = "v2" }
        let second = try await service.downloadAsync()

        // Then the mismatched 304 is not taken for the stored file: v2 is fetched and stored with its own tag
        #expect(second.origin == .network)
        #expect(try Data(contentsOf: second.result) == Data("v2".utf8))
        #expect(store.info(forKey: "k")?.eTag == "\"v2\"")
        #expect(server.requests.map { $0.headers["if-none-match"] } == [nil, "\"v1\"", nil])
    }

    @Test func aNotModifiedWithTheSameOrNoTagStillRenews() async throws {
        // Given a stored download of v1, and a server answering 304 with a weak form of its tag, then with none
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let withTag = Locked(true)
        let server = try await LoopbackServer.start([
            (
                "GET /asset",
                { request in
                    guard let tag = request.headers["if-none-match"], ConditionalHeaders.weakMatch(tag, "\"v1\"") else {
                        return ServerReply(status: 200, headers: ["ETag": "\"v1\""], body: Data("v1".utf8))
                    }
                    return ServerReply(status: 304, headers: withTag.withLock { $0 } ? ["ETag": "W/\"v1\""] : [:])
                }
            )
        ])
        defer { Task { await server.stop() } }
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: ManualClock())
        )
        let provider = try FileCacheProvider(store: store)
        let service = try assetDownload(from: server, through: provider, key: "k", folder: folder)
        _ = try await service.downloadAsync()

        // When it is revalidated twice
        let second = try await service.downloadAsync()
        withTag.withLock { $0 = false }
        let third = try await service.downloadAsync()

        // Then both 304s answer from the store
        #expect(second.origin == .revalidated && third.origin == .revalidated)
        #expect(try Data(contentsOf: third.result) == Data("v1".utf8))
    }
}
