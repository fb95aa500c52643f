import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataFile
import StrataNetwork
import StrataTestSupport
import Testing

/// Under `bypassServerCallOnFoundItem`, a `FileCacheProvider`'s copy answers without a request only when nothing
/// forbids it: a response that said `no-cache` or `must-revalidate`, or varied by request fields, is revalidated
/// before each reuse, and so is a request that asks for it (`Cache-Control: no-cache`). RFC 9111, sections 4.1,
/// 5.2.2.2 and 5.2.2.4.
struct ProviderRevalidationPolicyTests {
    /// The response's fields, the request's `Cache-Control`, and whether the second download may come from the cache.
    static let cases: [(response: [String: String], request: String?, fromCache: Bool)] = [
        (["Cache-Control": "no-cache"], nil, false),
        (["Cache-Control": "max-age=60, must-revalidate"], nil, false),
        (["Cache-Control": "max-age=60", "Vary": "Accept-Language"], nil, false),
        (["Cache-Control": "max-age=60"], "no-cache", false),
        (["Cache-Control": "max-age=60"], nil, true),
    ]

    @Test(arguments: cases)
    func aCopyIsReusedWithoutARequestOnlyWhenNothingForbidsIt(
        _ scenario: (response: [String: String], request: String?, fromCache: Bool)
    ) async throws {
        // Given a file stored through a provider that answers from its copy without asking
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let version = Locked("one")
        let server = try await LoopbackServer.start([
            (
                "GET /doc",
                { request in
                    let current = version.withLock { $0 }
                    if request.headers["if-none-match"] == "\"\(current)\"" {
                        return ServerReply(status: 304, headers: ["ETag": "\"\(current)\""])
                    }
                    var headers = scenario.response
                    headers["ETag"] = "\"\(current)\""
                    return ServerReply(status: 200, headers: headers, body: Data(current.utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "downloads"))
        let provider = try FileCacheProvider(store: store, cachePolicy: .bypassServerCallOnFoundItem)
        let client = try makeClient(folder)
        var request = HTTPRequest(.get, url: server.baseURL.appendingPathComponent("doc"))
        if let control = scenario.request { request.headers["Cache-Control"] = control }
        func download() async throws -> DownloadResult<URL> {
            try await DownloadService(request: request, cacheProvider: provider, cacheKey: "doc", client: client)
                .downloadAsync()
        }
        _ = try await download()

        // When the resource changes and it is downloaded again
        version.withLock { $0 = "two" }
        let second = try await download()

        // Then only a copy nothing forbids is reused; the others are revalidated, and the new version comes
        let text = String(decoding: try Data(contentsOf: second.result), as: UTF8.self)
        if scenario.fromCache {
            #expect(second.origin == .cache && text == "one")
            #expect(server.requestCount(path: "/doc") == 1)
        } else {
            #expect(second.origin == .network && text == "two")
            #expect(server.requests.last?.headers["if-none-match"] == "\"one\"")
        }
    }
}

/// A file that varies on request fields is revalidated by its `ETag` alone.
struct ProviderVariantRevalidationTests {
    /// Before, a stored variant was revalidated with `If-Modified-Since` too: a server whose variants share one
    /// `Last-Modified` (a row's update time) answered the French request 304, about the French variant, and the
    /// English file was handed out as revalidated.
    @Test(.timeLimit(.minutes(1))) func aVariantIsNeverHandedOutForARequestOfAnother() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let bodies = ["en": "hello", "fr": "bonjour"]
        let server = try await LoopbackServer.start([
            (
                "GET /doc",
                { request in
                    let lastModified = "Sat, 05 Dec 2026 08:00:00 GMT"
                    if request.headers["if-modified-since"] == lastModified { return ServerReply(status: 304) }
                    let language = request.headers["accept-language"] ?? "en"
                    let headers = [
                        "Cache-Control": "max-age=60", "Vary": "Accept-Language", "Last-Modified": lastModified,
                    ]
                    return ServerReply(status: 200, headers: headers, body: Data((bodies[language] ?? "").utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "downloads"))
        let provider = try FileCacheProvider(store: store, cachePolicy: .alwaysFetchWithCustomHeader)
        let client = try makeClient(folder)
        func download(in language: String) async throws -> DownloadResult<URL> {
            var request = HTTPRequest(.get, url: server.baseURL.appendingPathComponent("doc"))
            request.headers["Accept-Language"] = language
            return try await DownloadService(request: request, cacheProvider: provider, cacheKey: "doc", client: client)
                .downloadAsync()
        }

        _ = try await download(in: "en")
        let french = try await download(in: "fr")

        #expect(String(decoding: try Data(contentsOf: french.result), as: UTF8.self) == "bonjour")
        #expect(french.origin == .network)
        #expect(server.requests.allSatisfy { $0.headers["if-modified-since"] == nil })
    }
}
