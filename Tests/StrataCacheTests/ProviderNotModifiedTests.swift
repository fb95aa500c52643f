import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataFile
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

/// A 304 through ``DownloadService`` is a value: no file is created for it, and the provider's entry is kept
/// as it is (renewed, never rewritten).
struct ProviderNotModifiedTests {
    @Test(.timeLimit(.minutes(1)))
    func aNotModifiedDownloadCreatesNoFileAndKeepsTheStoredEntry() async throws {
        // Given a provider on a file store, a server that answers 304 to the stored ETag, and a transport that
        // watches the download folder
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let body = pattern(count: 8_192)
        let server = try await startServer(VersionedResource(body: body, eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let downloads = folder.url.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        // The folder as each download returns, before the client could delete anything: a file created for a 304
        // would show there.
        let listings = Locked<[[String]]>([])
        let transport = TestTransport(.network) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? []
            listings.withLock { $0.append(names.sorted()) }
        }
        let client = HTTPClient(
            transport: transport,
            configuration: .init(timeout: .seconds(60), downloadDirectory: downloads)
        )
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "assets"))
        let provider = try FileCacheProvider(store: store)
        let service = DownloadService(
            url: server.baseURL.appendingPathComponent("asset"),
            cacheProvider: provider,
            cacheKey: "asset",
            client: client
        )

        // When it downloads, then revalidates twice
        let first = try await service.downloadAsync()
        let stored = try #require(store.info(forKey: "asset"))
        let second = try await service.downloadAsync()
        let third = try await service.downloadAsync()

        // Then the 200 went through a file; the 304s created none (the folder was empty when each returned),
        // and the store's entry is the one first written
        #expect(first.origin == .network)
        #expect(second.origin == .revalidated)
        #expect(third.origin == .revalidated)
        let seen = listings.withLock { $0 }
        #expect(seen.count == 3)
        #expect(seen.first?.count == 1)
        #expect(Array(seen.dropFirst()) == [[], []], "\(seen)")
        #expect(folder.contents("downloads").isEmpty)
        #expect(try Data(contentsOf: third.result) == body)
        #expect(store.info(forKey: "asset")?.contentHash == stored.contentHash)
        #expect(second.responseHeaders.values(for: "ETag") == ["\"v1\""])
        #expect(server.requestCount(path: "/asset") == 3)
    }

    /// A 304 that renews the entry (its stored date moves to now) hands out the checkout already made, the same file:
    /// the renewal changed no byte. (The checkout's version included the stored date, so after every 304 the whole
    /// entry was read into memory and its checkout written again.)
    @Test(.timeLimit(.minutes(1)))
    func aNotModifiedHandsOutTheSameCheckoutWithoutWritingItAgain() async throws {
        // Given a stored download and its checkout
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let body = pattern(count: 8_192)
        let server = try await startServer(VersionedResource(body: body, eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: clock)
        )
        let provider = try FileCacheProvider(store: store)
        let service = try assetDownload(from: server, through: provider, folder: folder)
        let first = try await service.downloadAsync()
        let checkout = try inode(first.result)

        // When the server answers 304 an hour later
        clock.advance(by: .seconds(3_600))
        let renewed = try await service.downloadAsync()

        // Then the entry was renewed, and the same checkout file handed out
        #expect(renewed.origin == .revalidated)
        #expect(store.info(forKey: "k")?.created == clock.now())
        #expect(renewed.result == first.result)
        #expect(try inode(renewed.result) == checkout)
        #expect(try Data(contentsOf: renewed.result) == body)
    }

    /// A 304 whose `Cache-Control` says `no-store` replaces the stored fields (RFC 9111, section 4.3.4) with fields
    /// that forbid storing, as a 200 with `no-store` does: the download hands out a file of its own with the stored
    /// bytes, which stays the caller's, and the provider's entry is removed. (It renewed the entry and kept it.)
    @Test(.timeLimit(.minutes(1)))
    func aNoStoreNotModifiedHandsOutTheFileAndRemovesTheEntry() async throws {
        // Given a stored download, and a server whose answers now say `no-store`
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let body = pattern(count: 8_192)
        let resource = VersionedResource(body: body, eTag: "\"v1\"")
        let server = try await startServer(resource)
        defer { Task { await server.stop() } }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "assets"))
        let provider = try FileCacheProvider(store: store)
        let service = try assetDownload(from: server, through: provider, folder: folder)
        _ = try await service.downloadAsync()
        resource.setExtraHeaders(["Cache-Control": "no-store"])

        // When the server answers 304 with `no-store`
        let answered = try await service.downloadAsync()

        // Then the download succeeded with the stored bytes, the entry is gone, and the file handed out stays
        // (a lookup that misses deletes the key's checkout)
        #expect(answered.origin == .revalidated)
        #expect(store.info(forKey: "k") == nil)
        #expect(provider.find(key: "k") == nil)
        #expect(try Data(contentsOf: answered.result) == body)
        #expect(server.requestCount(path: "/asset") == 2)
    }

    /// A `no-store` 304 about another version than the provider's copy (its `ETag` names another) is about no copy
    /// the cache holds: the client asks once more without conditions, and the download is the full answer — the
    /// provider's copy is never handed out for it.
    @Test(.timeLimit(.minutes(1)))
    func aNoStoreNotModifiedAboutAnotherVersionIsAskedAgain() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "assets"))
        let provider = try FileCacheProvider(store: store)
        let server = try await LoopbackServer.start([
            (
                "GET /asset",
                { request in
                    guard request.headers["if-none-match"] == nil else {
                        return ServerReply(status: 304, headers: ["ETag": "\"v2\"", "Cache-Control": "no-store"])
                    }
                    return ServerReply(status: 200, headers: ["ETag": "\"v1\""], body: Data("v1".utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let service = try assetDownload(from: server, through: provider, folder: folder)
        _ = try await service.downloadAsync()

        let again = try await service.downloadAsync()

        #expect(again.origin == .network)
        #expect(server.requestCount(path: "/asset") == 3)
        #expect(try Data(contentsOf: again.result) == Data("v1".utf8))
    }

    /// A 304 that finds the provider's copy gone (removed between the request and its answer) is about no copy the
    /// cache holds: the download asks once more without the provider's headers and stores the 200. (It failed with
    /// ``Strata/StrataError/Code/notFound``, the code of a 404.)
    @Test(.timeLimit(.minutes(1)))
    func aNotModifiedThatFindsTheCopyGoneAsksAgain() async throws {
        // Given a stored download, and a server that removes the entry before it answers a conditional request
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let body = pattern(count: 8_192)
        let resource = VersionedResource(body: body, eTag: "\"v1\"")
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "assets"))
        let provider = try FileCacheProvider(store: store)
        let server = try await LoopbackServer.start([
            (
                "GET /asset",
                { request in
                    if request.headers["if-none-match"] != nil { _ = try? store.removeValue(forKey: "k") }
                    return resource.reply(request)
                }
            )
        ])
        defer { Task { await server.stop() } }
        let service = try assetDownload(from: server, through: provider, folder: folder)
        _ = try await service.downloadAsync()

        // When it downloads again, and the server answers 304 once the entry is gone
        let answered = try await service.downloadAsync()

        // Then the download asked again, and stored and handed out the 200
        #expect(answered.origin == .network)
        #expect(try Data(contentsOf: answered.result) == body)
        #expect(store.info(forKey: "k") != nil)
        #expect(server.requestCount(path: "/asset") == 3)
    }

    /// The request asked again when a 304 finds the provider's copy gone has what the first one left of the total
    /// deadline (the client's configuration's), so the download as a whole ends at it. (The second request had a total
    /// deadline of its own: the download succeeded after 8 s of a 6 s deadline.) The 304 comes 2 s into an 8 s
    /// deadline, leaving a loaded machine 6 s to ask again; the second answer comes 6.5 s after that, past the shared
    /// deadline however late it is asked, and 1.5 s before a deadline of its own would end.
    @Test(.timeLimit(.minutes(2)))
    func theRequestAskedAgainWhenTheCopyIsGoneSharesTheTotalDeadline() async throws {
        // Given a stored download, and a server that then takes 2 s over a conditional request (removing the entry
        // before it answers) and 6.5 s over another
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let resource = VersionedResource(body: pattern(count: 8_192), eTag: "\"v1\"")
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "assets"))
        let provider = try FileCacheProvider(store: store)
        let slow = Locked(false)
        let server = try await LoopbackServer.start([
            (
                "GET /asset",
                { request in
                    let isConditional = request.headers["if-none-match"] != nil
                    let delay: Duration = .milliseconds(isConditional ? 2_000 : 6_500)
                    if slow.withLock({ $0 }) { try? await Task.sleep(for: delay) }
                    if isConditional { _ = try? store.removeValue(forKey: "k") }
                    return resource.reply(request)
                }
            )
        ])
        defer { Task { await server.stop() } }
        let downloads = folder.url.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        func service(timeout: Duration = .seconds(10), totalTimeout: Duration) -> DownloadService {
            DownloadService(
                url: server.baseURL.appendingPathComponent("asset"),
                cacheProvider: provider,
                cacheKey: "k",
                client: HTTPClient(
                    transport: URLSessionTransport(),
                    configuration: .init(
                        timeout: timeout,
                        totalTimeout: totalTimeout,
                        downloadDirectory: downloads
                    )
                )
            )
        }
        // (Stored under none of the test's timeouts: on a loaded machine, the first download alone took over 3 s, and
        // once moved no data for 10 s, with every test of the suite running at once.)
        _ = try await service(timeout: .seconds(40), totalTimeout: .seconds(40)).downloadAsync()
        slow.withLock { $0 = true }
        let service = service(totalTimeout: .seconds(8))

        // When it downloads again under a total deadline of 8 s: a 304 after 2 s that finds the entry gone
        let error = await strataError { _ = try await service.downloadAsync() }

        // Then the second request had only what the first left, and the download ends at the deadline (a request with
        // a deadline of its own would have succeeded)
        #expect(error?.code == .network)
        #expect((error?.underlying as? URLError)?.code == .timedOut)
        #expect(error?.message.contains("total deadline") == true, "\(String(describing: error))")
        // The requests as the scenario makes them: all three on any machine that is not starved, but when every test
        // runs at once (a plain `swift test` on two cores) the deadline may end the download before the conditional
        // request or the re-ask is sent; the download still ends at the deadline, which is what is tested above.
        let sent = server.requests.map { $0.headers["if-none-match"] }
        #expect(Array([nil, "\"v1\"", nil].prefix(sent.count)) == sent && sent.count >= 1, "\(sent)")
    }

    /// The file's inode: a rewritten checkout is a new file renamed over the old one.
    private func inode(_ url: URL) throws -> UInt64? {
        try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? UInt64
    }
}
