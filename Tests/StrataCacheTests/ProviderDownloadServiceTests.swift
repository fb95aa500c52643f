import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataNetwork
import StrataTestSupport
import Testing

struct ProviderDownloadServiceTests {
    @Test func bypassPolicyWithAFoundItemMakesNoRequest() async throws {
        // Given a provider that finds the item
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let resource = VersionedResource(body: pattern(count: 100), eTag: "\"v1\"")
        let server = try await startServer(resource)
        defer { Task { await server.stop() } }
        let cached = folder.url.appendingPathComponent("cached")
        let provider = ScriptedProvider(cachePolicy: .bypassServerCallOnFoundItem, folder: folder.url, found: cached)
        let service = try assetDownload(from: server, through: provider, key: "123", folder: folder)
        let progress = ProgressValues()

        // When
        let result = try await service.downloadAsync { progress.append($0) }

        // Then
        #expect(result.result == cached)
        #expect(result.origin == .cache)
        #expect(server.requestCount() == 0)
        #expect(provider.recorded.find == ["123"])
        #expect(progress.all.last == 1.0)
    }

    @Test func bypassPolicyWithoutAFoundItemDownloadsAndStores() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 100), eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let provider = ScriptedProvider(cachePolicy: .bypassServerCallOnFoundItem, folder: folder.url)
        let service = try assetDownload(from: server, through: provider, folder: folder)

        let result = try await service.downloadAsync()

        #expect(result.origin == .network)
        #expect(server.requestCount(path: "/asset") == 1)
        #expect(try Data(contentsOf: result.result) == pattern(count: 100))
    }

    @Test func alwaysFetchSendsTheHeadersAndAnswersA304FromCachedItem() async throws {
        // Given a server whose current ETag the provider knows
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 100), eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let provider = ScriptedProvider(
            cachePolicy: .alwaysFetchWithCustomHeader,
            folder: folder.url,
            found: folder.url,
            headers: ["If-None-Match": "\"v1\""]
        )
        let service = try assetDownload(from: server, through: provider, folder: folder)

        // When
        let result = try await service.downloadAsync()

        // Then: one request, find never asked, the 304 answered from cachedItem with its headers
        #expect(server.requestCount(path: "/asset") == 1)
        #expect(server.requests.first?.headers["if-none-match"] == "\"v1\"")
        #expect(provider.recorded.find.isEmpty)
        #expect(provider.recorded.cachedItem == ["k"])
        #expect(provider.recorded.store.isEmpty)
        #expect(result.origin == .revalidated)
        #expect(result.result == folder.url.appendingPathComponent("cached-k"))
        #expect(result.headers.first { $0.key.lowercased() == "etag" }?.value == "\"v1\"")
    }

    /// A provider that implements only the seed's methods, answered a 304 that says `no-store`: it is handed a copy of
    /// its file as a download that must not be stored (so one that honours `no-store` drops its own), and the download
    /// answers with what it returns.
    @Test func aNoStore304ReachesAProviderWithoutRenewalThroughStore() async throws {
        // Given a provider holding v1 with its own renewal left to the default, and a server answering 304 `no-store`
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let resource = VersionedResource(body: pattern(count: 100), eTag: "\"v1\"")
        resource.setExtraHeaders(["Cache-Control": "no-store"])
        let server = try await startServer(resource)
        defer { Task { await server.stop() } }
        try pattern(count: 100).write(to: folder.url.appendingPathComponent("cached-k"))
        let provider = ScriptedProvider(
            cachePolicy: .alwaysFetchWithCustomHeader,
            folder: folder.url,
            headers: ["If-None-Match": "\"v1\""]
        )
        let service = try assetDownload(from: server, through: provider, folder: folder)

        // When it downloads
        let result = try await service.downloadAsync()

        // Then the provider was handed a copy of its file with `no-store`, and the download answers with its answer
        let store = try #require(provider.recorded.store.first)
        #expect(provider.recorded.cachedItem == ["k"])
        #expect(store.fileExisted)
        #expect(store.headers["Cache-Control"] == "no-store")
        #expect(result.origin == .revalidated)
        #expect(result.result == folder.url.appendingPathComponent("stored-k"))
        #expect(try Data(contentsOf: result.result) == pattern(count: 100))
        #expect(folder.contents("downloads").isEmpty)
    }

    /// Before, a 304 to a request that carried none of the provider's headers (an entry stored without validators)
    /// renewed the entry and handed out its file, pinning whatever version it held.
    @Test func a304ToARequestWithoutTheProvidersHeadersIsAnError() async throws {
        // Given a server that answers 304 to every request, and a provider that has no headers to send
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([
            ("GET /asset", { _ in ServerReply(status: 304, headers: ["ETag": "\"v9\""]) })
        ])
        defer { Task { await server.stop() } }
        let provider = ScriptedProvider(cachePolicy: .alwaysFetchWithCustomHeader, folder: folder.url)
        let service = try assetDownload(from: server, through: provider, folder: folder)

        // When it downloads
        let error = await #expect(throws: StrataError.self) { _ = try await service.downloadAsync() }

        // Then the 304 is a typed error, and the provider's file is neither renewed nor handed out
        #expect(error?.code == .unexpectedResponse)
        #expect(error?.httpFailure?.status == 304)
        #expect(provider.recorded.cachedItem.isEmpty)
        #expect(server.requests.first?.headers["if-none-match"] == nil)
    }

    @Test func a2xxIsStoredWithTheDownloadedFileAndTheResponseHeaders() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 5_000), eTag: "\"v2\""))
        defer { Task { await server.stop() } }
        let provider = ScriptedProvider(
            cachePolicy: .alwaysFetchWithCustomHeader,
            folder: folder.url,
            headers: ["If-None-Match": "\"v1\""]
        )
        let service = try assetDownload(from: server, through: provider, folder: folder)

        let result = try await service.downloadAsync()

        let store = try #require(provider.recorded.store.first)
        #expect(store.key == "k")
        #expect(store.fileExisted)
        #expect(store.headers.first { $0.key.lowercased() == "etag" }?.value == "\"v2\"")
        #expect(result.origin == .network)
        #expect(result.result == folder.url.appendingPathComponent("stored-k"))
        #expect(try Data(contentsOf: result.result) == pattern(count: 5_000))
        #expect(folder.contents("downloads").isEmpty)
    }

    @Test func aThrowingStoreFailsTheDownloadWithThatErrorAndLeavesNoTemporaryFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 100), eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let failure = ProviderFailure(reason: "disk full")
        let provider = ScriptedProvider(
            cachePolicy: .alwaysFetchWithCustomHeader,
            folder: folder.url,
            storeError: failure
        )
        let service = try assetDownload(from: server, through: provider, folder: folder)

        await #expect(throws: failure) { try await service.downloadAsync() }
        #expect(folder.contents("downloads").isEmpty)
    }

    @Test func aThrowingCachedItemFailsTheDownloadWithThatError() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 100), eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let failure = ProviderFailure(reason: "evicted")
        let provider = ScriptedProvider(
            cachePolicy: .alwaysFetchWithCustomHeader,
            folder: folder.url,
            headers: ["If-None-Match": "\"v1\""],
            cachedItemError: failure
        )
        let service = try assetDownload(from: server, through: provider, folder: folder)

        await #expect(throws: failure) { try await service.downloadAsync() }
        #expect(server.requestCount(path: "/asset") == 1)
    }

    @Test func providerHeadersReplaceRequestHeadersOfTheSameNameWhateverTheirCase() async throws {
        // Given a request that already has an If-None-Match and a provider that gives one in lower case
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 10), eTag: "\"new\""))
        defer { Task { await server.stop() } }
        let transport = TestTransport()
        let provider = ScriptedProvider(
            cachePolicy: .alwaysFetchWithCustomHeader,
            folder: folder.url,
            headers: ["if-none-match": "\"new\"", "X-Extra": "1"]
        )
        var request = HTTPRequest(.get, url: server.baseURL.appendingPathComponent("asset"))
        request.headers["If-None-Match"] = "\"old\""
        request.headers["Accept"] = "*/*"
        let service = DownloadService(
            request: request,
            cacheProvider: provider,
            cacheKey: "k",
            client: try makeClient(folder, transport: transport)
        )

        // When
        let result = try await service.downloadAsync()

        // Then: one If-None-Match, the provider's; other headers kept
        let sent = try #require(transport.requests.first)
        #expect(sent.headers.values(for: "If-None-Match") == ["\"new\""])
        #expect(sent.headers["accept"] == "*/*")
        #expect(sent.headers["x-extra"] == "1")
        #expect(server.requests.first?.headers["if-none-match"] == "\"new\"")
        #expect(result.origin == .revalidated)
    }

    @Test func theThreeInvocationFormsGiveTheSameResultAndProgressReachesOne() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let body = pattern(count: 64 * 1024)
        let server = try await startServer(VersionedResource(body: body, eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let provider = ScriptedProvider(cachePolicy: .alwaysFetchWithCustomHeader, folder: folder.url)
        let client = try makeClient(folder)
        func service(_ key: String) -> DownloadService {
            DownloadService(
                url: server.baseURL.appendingPathComponent("asset"),
                cacheProvider: provider,
                cacheKey: key,
                client: client
            )
        }

        // async
        let asyncProgress = ProgressValues()
        let viaAsync = try await service("async").downloadAsync { asyncProgress.append($0) }

        // completion handler
        let completionProgress = ProgressValues()
        let viaCompletion = try await withCheckedThrowingContinuation { continuation in
            service("completion").download(progress: { completionProgress.append($0) }) { result in
                continuation.resume(with: result)
            }
        }

        // future: awaited and observed
        let futureProgress = ProgressValues()
        let future = service("future").download(progress: { futureProgress.append($0) })
        let viaFuture = try await future.value
        let observed = await withCheckedContinuation { continuation in
            future.onComplete { continuation.resume(returning: $0) }
        }

        for (result, key) in [(viaAsync, "async"), (viaCompletion, "completion"), (viaFuture, "future")] {
            #expect(result.origin == .network)
            #expect(result.result == folder.url.appendingPathComponent("stored-\(key)"))
            #expect(try Data(contentsOf: result.result) == body)
        }
        #expect(try observed.get() == viaFuture)
        for progress in [asyncProgress, completionProgress, futureProgress] {
            #expect(progress.all.last == 1.0)
            #expect(zip(progress.all, progress.all.dropFirst()).allSatisfy { $0 <= $1 })
        }
        #expect(server.requestCount(path: "/asset") == 3)
    }

    @Test func theFutureAndTheCompletionFormsReportProviderErrors() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 10), eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let failure = ProviderFailure(reason: "nope")
        let provider = ScriptedProvider(
            cachePolicy: .alwaysFetchWithCustomHeader,
            folder: folder.url,
            storeError: failure
        )
        let service = try assetDownload(from: server, through: provider, folder: folder)

        let viaCompletion = await withCheckedContinuation { continuation in
            service.download(progress: nil) { continuation.resume(returning: $0) }
        }
        let viaFuture = await service.download(progress: nil).result

        #expect(throws: failure) { try viaCompletion.get() }
        #expect(throws: failure) { try viaFuture.get() }
    }

    /// A provider that returns the download by another path: through a link to the download folder (as
    /// `resolvingSymlinksInPath()` turns `/var` into `/private/var` on macOS), or a copy of it beside that link.
    private struct AliasingProvider: CacheProvider {
        let alias: URL
        let copies: Bool
        var cachePolicy: CachePolicy { .alwaysFetchWithCustomHeader }
        func find(key: String) -> URL? { nil }
        func cachedItem(key: String) throws -> URL { throw ProviderFailure(reason: "nothing cached") }
        func store(objectAt file: URL, key: String, headers: [String: String]) throws -> URL {
            guard copies else { return alias.appendingPathComponent(file.lastPathComponent) }
            let copy = alias.deletingLastPathComponent().appendingPathComponent("copy")
            try FileManager.default.copyItem(at: file, to: copy)
            return copy
        }
        func headerValues(for cacheKey: String) -> [String: String] { [:] }
    }

    /// The download a provider returns by another path is the same file (device and inode) and stays; a copy's
    /// download is deleted. (The service compared paths: it deleted the file and handed out a URL to nothing.)
    @Test(arguments: [false, true])
    func theDownloadIsDeletedOnlyWhenTheProviderReturnedAnotherFile(copies: Bool) async throws {
        // Given a provider that returns the download through a link to its folder, or a copy
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 100), eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let alias = folder.url.appendingPathComponent("alias")
        let provider = AliasingProvider(alias: alias, copies: copies)
        let service = try assetDownload(from: server, through: provider, folder: folder)
        let downloads = folder.url.appendingPathComponent("downloads")
        try FileManager.default.createSymbolicLink(at: alias, withDestinationURL: downloads)

        // When it downloads
        let result = try await service.downloadAsync()

        // Then the file returned is there; the download is kept when it is that file, deleted when it was copied
        #expect(try Data(contentsOf: result.result) == pattern(count: 100))
        #expect(folder.contents("downloads").count == (copies ? 0 : 1))
    }
}
