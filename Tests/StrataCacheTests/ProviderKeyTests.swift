import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataFile
import StrataNetwork
import StrataTestSupport
import Testing

/// The key a `DownloadService` keeps its file under: an empty one is refused before anything is downloaded, and by
/// default a URL's fragment (never sent) is no part of it, as in every other cache of Strata.
struct ProviderKeyTests {
    @Test(.timeLimit(.minutes(1)))
    func anEmptyKeyIsRefusedBeforeAnythingIsDownloaded() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([
            ("GET /asset", { _ in ServerReply(status: 200, body: Data(repeating: 1, count: 1 << 20)) })
        ])
        defer { Task { await server.stop() } }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "downloads"))
        let provider = try FileCacheProvider(store: store)
        let service = DownloadService(
            url: server.baseURL.appendingPathComponent("asset"),
            cacheProvider: provider,
            cacheKey: "",
            client: try makeClient(folder)
        )

        let error = await #expect(throws: StrataError.self) { try await service.downloadAsync() }

        #expect(error?.code == .invalidArgument)
        #expect(server.requestCount() == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func urlsThatDifferOnlyInTheirFragmentAreOneFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([
            (
                "GET /a.pdf",
                { _ in ServerReply(status: 200, headers: ["ETag": "\"v1\""], body: Data("pdf".utf8)) }
            )
        ])
        defer { Task { await server.stop() } }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "downloads"))
        let provider = try FileCacheProvider(store: store, cachePolicy: .bypassServerCallOnFoundItem)
        let client = try makeClient(folder)
        let base = server.baseURL.appendingPathComponent("a.pdf").absoluteString

        for page in 1...3 {
            let url = try #require(URL(string: base + "#page=\(page)"))
            _ = try await DownloadService(url: url, cacheProvider: provider, client: client).downloadAsync()
        }

        #expect(server.requestCount() == 1)
        #expect(store.count == 1)
    }
}
