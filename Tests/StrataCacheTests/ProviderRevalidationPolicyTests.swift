import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataFile
import StrataNetwork
import StrataTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Under `bypassServerCallOnFoundItem`, a `FileCacheProvider`'s copy answers without a request only when nothing
/// forbids it: a response that said `no-cache` or `must-revalidate` is revalidated before each reuse, so is one that
/// varied by request fields the second request sends other values in, and so is a request that asks for it
/// (`Cache-Control: no-cache`). RFC 9111, sections 4.1, 5.2.2.2 and 5.2.2.4.
struct ProviderRevalidationPolicyTests {
    /// The response's fields, the request's `Cache-Control`, the `Accept-Encoding` of the first and of the second
    /// request, and whether the second download may come from the cache.
    static let cases: [(response: [String: String], request: String?, encodings: [String?], fromCache: Bool)] = [
        (["Cache-Control": "no-cache"], nil, [nil, nil], false),
        (["Cache-Control": "max-age=60, must-revalidate"], nil, [nil, nil], false),
        (["Cache-Control": "max-age=60"], "no-cache", [nil, nil], false),
        (["Cache-Control": "max-age=60"], nil, [nil, nil], true),
        // Before, any `Vary` (most CDNs' and nginx's `Accept-Encoding`) made every download ask the server.
        (["Cache-Control": "max-age=60", "Vary": "Accept-Encoding"], nil, ["gzip", "gzip"], true),
        (["Cache-Control": "max-age=60", "Vary": "Accept-Encoding"], nil, [nil, nil], true),
        (["Cache-Control": "max-age=60", "Vary": "Accept-Encoding"], nil, ["gzip", "identity"], false),
        (["Cache-Control": "max-age=60", "Vary": "Accept-Encoding"], nil, [nil, "identity"], false),
        (["Cache-Control": "no-cache", "Vary": "Accept-Encoding"], nil, ["gzip", "gzip"], false),
    ]

    @Test(arguments: cases)
    func aCopyIsReusedWithoutARequestOnlyWhenNothingForbidsIt(
        _ scenario: (response: [String: String], request: String?, encodings: [String?], fromCache: Bool)
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
        func download(accepting encoding: String?) async throws -> DownloadResult<URL> {
            var request = HTTPRequest(.get, url: server.baseURL.appendingPathComponent("doc"))
            if let control = scenario.request { request.headers["Cache-Control"] = control }
            if let encoding { request.headers["Accept-Encoding"] = encoding }
            return try await DownloadService(request: request, cacheProvider: provider, cacheKey: "doc", client: client)
                .downloadAsync()
        }
        _ = try await download(accepting: scenario.encodings[0])

        // When the resource changes and it is downloaded again
        version.withLock { $0 = "two" }
        let second = try await download(accepting: scenario.encodings[1])

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

/// A variant's record of its request's fields, through a `304` and for a file stored by hand.
struct ProviderVariantReuseTests {
    /// Runs `body` with a provider that answers from its copy without asking, a `/doc` that answers
    /// `Vary: Accept-Encoding` with `no-cache` (and a 304 to its `ETag` with `max-age=60`), and a download of it that
    /// sends an `Accept-Encoding` (none for `nil`) and gives the origin of its answer.
    private static func withVariant(
        _ body: (FileCacheProvider, TemporaryFolder, LoopbackServer, _ download: (String?) async throws -> DataOrigin)
            async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([
            (
                "GET /doc",
                { request in
                    if request.headers["if-none-match"] == "\"one\"" {
                        return ServerReply(status: 304, headers: ["ETag": "\"one\"", "Cache-Control": "max-age=60"])
                    }
                    let headers = ["ETag": "\"one\"", "Cache-Control": "no-cache", "Vary": "Accept-Encoding"]
                    return ServerReply(status: 200, headers: headers, body: Data("one".utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "downloads"))
        let provider = try FileCacheProvider(store: store, cachePolicy: .bypassServerCallOnFoundItem)
        let client = try makeClient(folder)
        try await body(provider, folder, server) { encoding in
            var request = HTTPRequest(.get, url: server.baseURL.appendingPathComponent("doc"))
            if let encoding { request.headers["Accept-Encoding"] = encoding }
            return try await DownloadService(request: request, cacheProvider: provider, cacheKey: "doc", client: client)
                .downloadAsync().origin
        }
    }

    /// A 304 whose `Cache-Control` lifts `no-cache` keeps the variant's record: the copy then answers, without a
    /// request, a request that sends the same `Accept-Encoding`, and not one that sends another.
    @Test func aNotModifiedKeepsTheVariantsRequestFields() async throws {
        try await Self.withVariant { _, _, server, download in
            let origins = [
                try await download("gzip"),  // stored, no-cache
                try await download("gzip"),  // revalidated: 304, max-age=60
                try await download("gzip"),  // the same fields: from the copy
                try await download("br"),  // other fields: asked
            ]

            #expect(origins == [.network, .revalidated, .cache, .revalidated])
            #expect(server.requestCount(path: "/doc") == 3)
        }
    }

    /// A file stored by hand, whose request the provider does not know, is asked about before each reuse when its
    /// response varied by request fields.
    @Test func aVariantStoredByHandIsAskedAboutEachTime() async throws {
        try await Self.withVariant { provider, folder, server, download in
            let file = folder.url.appendingPathComponent("by-hand")
            try Data("one".utf8).write(to: file)
            let headers = ["ETag": "\"one\"", "Cache-Control": "max-age=60", "Vary": "Accept-Encoding"]
            _ = try provider.store(objectAt: file, key: "doc", headers: headers)

            let origin = try await download(nil)

            #expect(origin == .revalidated)
            #expect(server.requestCount(path: "/doc") == 1)
        }
    }
}

/// A variant on a field a transport adds on its own, the request lacking it, is asked about each time.
struct ProviderTransportFieldVariantTests {
    /// Before, a response that varied by `Authorization`, which a transport's configuration added, was kept with the
    /// digest of a request without it: the next user's download, through a transport made with their token, was
    /// handed the first user's file without asking.
    @Test func aVariantOnCredentialsTheTransportAddsIsNeverReusedWithoutAsking() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([
            (
                "GET /me",
                { request in
                    let user = request.headers["authorization"] ?? "nobody"
                    let headers = ["Cache-Control": "max-age=60", "Vary": "Authorization"]
                    return ServerReply(status: 200, headers: headers, body: Data(user.utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "downloads"))
        let provider = try FileCacheProvider(store: store, cachePolicy: .bypassServerCallOnFoundItem)
        func download(as user: String) async throws -> String {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["Authorization": user]
            let client = try makeClient(folder, transport: URLSessionTransport(configuration: configuration))
            let request = HTTPRequest(.get, url: server.baseURL.appendingPathComponent("me"))
            let result = try await DownloadService(
                request: request,
                cacheProvider: provider,
                cacheKey: "me",
                client: client
            )
            .downloadAsync()
            return String(decoding: try Data(contentsOf: result.result), as: UTF8.self)
        }

        let first = try await download(as: "Bearer A")
        let second = try await download(as: "Bearer B")

        #expect([first, second] == ["Bearer A", "Bearer B"])
        #expect(server.requestCount(path: "/me") == 2)
    }
}
