import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataFile
import StrataNetwork
import StrataTestSupport
import Testing

/// A `DownloadService` request by another method than GET is not a request for the stored file (RFC 9111, section
/// 4): it is never answered from the cache, never sent with the provider's validators, and its answer never stored.
struct ProviderMethodTests {
    @Test(arguments: [CachePolicy.alwaysFetchWithCustomHeader, .bypassServerCallOnFoundItem])
    func aPostIsSentEachTimeWithoutTheStoredValidatorsAndNotStored(policy: CachePolicy) async throws {
        // Given a file store holding the GET's file under "report", and a server whose POST refuses a matching
        // If-None-Match (RFC 9110, section 13.1.2) and answers a new export each time
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let exports = Locked(0)
        let server = try await LoopbackServer.start([
            ("GET /report", { _ in ServerReply(status: 200, headers: ["ETag": "\"e0\""], body: Data("report".utf8)) }),
            (
                "POST /report",
                { request in
                    if request.headers["if-none-match"] != nil { return ServerReply(status: 412) }
                    let number = exports.withLock { count in
                        count += 1
                        return count
                    }
                    return ServerReply(
                        status: 200,
                        headers: ["ETag": "\"e\(number)\""],
                        body: Data("export \(number)".utf8)
                    )
                }
            ),
        ])
        defer { Task { await server.stop() } }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "downloads"))
        let provider = try FileCacheProvider(store: store, cachePolicy: policy)
        let client = try makeClient(folder)
        let url = server.baseURL.appendingPathComponent("report")
        _ = try await DownloadService(url: url, cacheProvider: provider, cacheKey: "report", client: client)
            .downloadAsync()

        // When the same key is downloaded twice by POST
        var results: [DownloadResult<URL>] = []
        for _ in 0..<2 {
            var request = HTTPRequest(.post, url: url)
            request.body = Data("{}".utf8)
            let post = DownloadService(
                request: request,
                cacheProvider: provider,
                cacheKey: "report",
                client: client
            )
            results.append(try await post.downloadAsync())
        }

        // Then both were sent, without the stored ETag, and answered from the network; the GET's file stays
        #expect(results.map(\.origin) == [.network, .network])
        #expect(
            try results.map { String(decoding: try Data(contentsOf: $0.result), as: UTF8.self) } == [
                "export 1", "export 2",
            ]
        )
        let posts = server.requests.filter { $0.method == "POST" }
        #expect(posts.count == 2)
        #expect(posts.allSatisfy { $0.headers["if-none-match"] == nil })
        let stored = try #require(provider.find(key: "report"))
        #expect(try Data(contentsOf: stored) == Data("report".utf8))
    }
}
