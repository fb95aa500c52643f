import Foundation
import LoopbackServer
import Strata
import StrataFile
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataCache

/// A part of a file is not the file: a `206 Partial Content` is never stored, and a request for a range neither
/// takes its answer from the cache nor revalidates the cached file.
struct ProviderPartialContentTests {
    private func makeProvider(_ folder: TemporaryFolder, policy: CachePolicy) throws -> FileCacheProvider {
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: ManualClock())
        )
        return try FileCacheProvider(store: store, cachePolicy: policy)
    }

    /// A 206 the client did not ask for is handed back as downloaded, the caller's, and not stored: the next download
    /// asks without validators and gets the whole file. (The part was stored as the file; the next download sent its
    /// `ETag`, and the server's 304 handed out the part as the revalidated file.)
    @Test func aPartialResponseIsHandedBackAndNeverStored() async throws {
        // Given a server that answers with the first 10 bytes of a 100-byte file
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let whole = pattern(count: 100)
        let resource = VersionedResource(
            body: whole.prefix(10),
            eTag: "\"v1\"",
            extraHeaders: ["Status": "206", "Content-Range": "bytes 0-9/100"]
        )
        let server = try await startServer(resource)
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder, policy: .alwaysFetchWithCustomHeader)
        let service = try assetDownload(from: server, through: provider, folder: folder)

        // When it is downloaded, then downloaded again once the server sends the whole file
        let part = try await service.downloadAsync()
        resource.setExtraHeaders([:])
        resource.update(body: whole, eTag: "\"v1\"")
        let second = try await service.downloadAsync()

        // Then the part was the caller's file, nothing was stored, and the second download got the whole file
        #expect(part.origin == .network)
        #expect(try Data(contentsOf: part.result) == whole.prefix(10))
        #expect(part.result.deletingLastPathComponent().lastPathComponent == "downloads")
        #expect(server.requests.last?.headers["if-none-match"] == nil)
        #expect(second.origin == .network)
        #expect(try Data(contentsOf: second.result) == whole)
        #expect(try Data(contentsOf: try provider.cachedItem(key: "k")) == whole)
    }

    /// A request carrying `Range`, under either policy, goes to the server without the provider's validators, and its
    /// 206 is handed back; the cached whole file stays. (Under `bypassServerCallOnFoundItem` the whole cached file
    /// answered the range; otherwise its `ETag` was sent and the 304 handed out the whole file.)
    @Test(arguments: [CachePolicy.bypassServerCallOnFoundItem, .alwaysFetchWithCustomHeader])
    func aRangeRequestNeitherReadsNorRevalidatesTheCache(policy: CachePolicy) async throws {
        // Given a stored whole file, and a server that answers a range with a 206
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let whole = pattern(count: 100)
        let server = try await LoopbackServer.start([
            (
                "GET /asset",
                { request in
                    if request.headers["range"] == "bytes=0-9" {
                        return ServerReply(
                            status: 206,
                            headers: ["ETag": "\"v1\"", "Content-Range": "bytes 0-9/100"],
                            body: whole.prefix(10)
                        )
                    }
                    if request.headers["if-none-match"] == "\"v1\"" {
                        return ServerReply(status: 304, headers: ["ETag": "\"v1\""])
                    }
                    return ServerReply(status: 200, headers: ["ETag": "\"v1\""], body: whole)
                }
            )
        ])
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder, policy: policy)
        let url = server.baseURL.appendingPathComponent("asset")
        let client = try makeClient(folder)
        _ = try await DownloadService(url: url, cacheProvider: provider, client: client).downloadAsync()
        let stored = try #require(provider.store.info(forKey: url.absoluteString))

        // When the first 10 bytes are asked for under the same key
        var request = HTTPRequest(.get, url: url)
        request.headers["Range"] = "bytes=0-9"
        let part = try await DownloadService(
            request: request,
            cacheProvider: provider,
            cacheKey: url.absoluteString,
            client: client
        ).downloadAsync()

        // Then the server was asked without validators, the part is the caller's file, and the whole file stays
        #expect(server.requestCount(path: "/asset") == 2)
        #expect(server.requests.last?.headers["if-none-match"] == nil)
        #expect(part.origin == .network)
        #expect(try Data(contentsOf: part.result) == whole.prefix(10))
        #expect(part.result.deletingLastPathComponent().lastPathComponent == "downloads")
        #expect(provider.store.info(forKey: url.absoluteString)?.contentHash == stored.contentHash)
        #expect(try Data(contentsOf: try provider.cachedItem(key: url.absoluteString)) == whole)
    }

    /// A 304 to a request for a range, which only the request's own conditions can bring, fails: the cache holds no
    /// part to answer with. (The whole cached file was handed out as the part.)
    @Test func aNotModifiedToARangeRequestFails() async throws {
        // Given a stored whole file
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 100), eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder, policy: .alwaysFetchWithCustomHeader)
        let url = server.baseURL.appendingPathComponent("asset")
        let client = try makeClient(folder)
        _ = try await DownloadService(url: url, cacheProvider: provider, cacheKey: "k", client: client).downloadAsync()

        // When a range is asked for with the caller's own If-None-Match, which the server answers with a 304
        var request = HTTPRequest(.get, url: url)
        request.headers["Range"] = "bytes=0-9"
        request.headers["If-None-Match"] = "\"v1\""
        let service = DownloadService(request: request, cacheProvider: provider, cacheKey: "k", client: client)
        let error = await #expect(throws: StrataError.self) { try await service.downloadAsync() }

        // Then the download fails, and the whole file stays cached
        #expect(error?.code == .unexpectedResponse)
        #expect(try Data(contentsOf: try provider.cachedItem(key: "k")) == pattern(count: 100))
    }

    /// Before, the message quoted the cache key as it was, and the default key is the URL: its user and password went
    /// into every log line of the error.
    @Test func theErrorOfANotModifiedToARangeRequestNamesTheURLWithoutItsPassword() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 100), eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder, policy: .alwaysFetchWithCustomHeader)
        var components = try #require(URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false))
        components.user = "ada"
        components.password = "hunter2"
        let url = try #require(components.url).appendingPathComponent("asset")
        let client = try makeClient(folder)
        _ = try await DownloadService(url: url, cacheProvider: provider, client: client).downloadAsync()

        var request = HTTPRequest(.get, url: url)
        request.headers["Range"] = "bytes=0-9"
        request.headers["If-None-Match"] = "\"v1\""
        let error = await #expect(throws: StrataError.self) {
            try await DownloadService(
                request: request,
                cacheProvider: provider,
                cacheKey: request.cacheKey,
                client: client
            )
            .downloadAsync()
        }

        #expect(error?.code == .unexpectedResponse)
        #expect(error?.message.contains("hunter2") == false, "\(String(describing: error))")
        #expect(error?.message.contains("/asset") == true, "\(String(describing: error))")
    }
}
