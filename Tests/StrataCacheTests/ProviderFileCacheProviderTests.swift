import Foundation
import LoopbackServer
import Strata
import StrataFile
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataCache

struct ProviderFileCacheProviderTests {
    private func makeProvider(
        _ folder: TemporaryFolder,
        maxSize: Int? = nil,
        maxCount: Int? = nil,
        policy: CachePolicy = .alwaysFetchWithCustomHeader
    ) throws -> FileCacheProvider {
        let store = try FileDataSource(
            configuration: .init(
                location: .url(folder.url),
                identifier: "assets",
                maxSize: maxSize,
                countLimit: maxCount,
                clock: ManualClock()
            )
        )
        return try FileCacheProvider(store: store, cachePolicy: policy)
    }

    @Test func aDownloadIsMovedIntoTheStoreAndRevalidatedWithItsETag() async throws {
        // Given
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let body = pattern(count: 20_000)
        let server = try await startServer(VersionedResource(body: body, eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder)
        let service = try assetDownload(from: server, through: provider, key: "123", folder: folder)

        // When: a first download, then a second one
        let first = try await service.downloadAsync()
        let second = try await service.downloadAsync()

        // Then: stored with its validators, moved (no download left behind), then a 304 answered from the store
        #expect(first.origin == .network)
        #expect(try Data(contentsOf: first.result) == body)
        #expect(provider.store.info(forKey: "123")?.eTag == "\"v1\"")
        #expect(provider.store.info(forKey: "123")?.lastModified == "Tue, 14 Nov 2023 22:13:20 GMT")
        #expect(folder.contents("downloads").isEmpty)
        #expect(second.origin == .revalidated)
        #expect(try Data(contentsOf: second.result) == body)
        #expect(server.requestCount(path: "/asset") == 2)
        #expect(server.requests.last?.headers["if-none-match"] == "\"v1\"")
        #expect(server.requests.last?.headers["if-modified-since"] == "Tue, 14 Nov 2023 22:13:20 GMT")
    }

    /// A download whose headers forbid storing it (RFC 9111, section 3) is handed back as it was downloaded, not
    /// stored: under `bypassServerCallOnFoundItem` the next download asks the server again.
    @Test(arguments: [["Cache-Control": "no-store"], ["Vary": "*"]])
    func aDownloadThatMustNotBeStoredIsHandedOutAndTheOlderOneRemoved(headers: [String: String]) async throws {
        // Given a stored first version
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let resource = VersionedResource(body: Data("v1".utf8), eTag: "\"v1\"")
        let server = try await startServer(resource)
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder, policy: .bypassServerCallOnFoundItem)
        let service = try assetDownload(from: server, through: provider, key: "123", folder: folder)
        _ = try await service.downloadAsync()
        #expect(provider.store.info(forKey: "123") != nil)

        // When the server's next version must not be stored, and the store has lost the first one's entry
        try provider.store.removeValue(forKey: "123")
        resource.update(body: Data("v2".utf8), eTag: "\"v2\"")
        resource.setExtraHeaders(headers)
        let second = try await service.downloadAsync()

        // Then the download is handed back (the caller's file), nothing is stored, and the next download asks again
        #expect(second.origin == .network)
        #expect(try Data(contentsOf: second.result) == Data("v2".utf8))
        #expect(second.result.deletingLastPathComponent().lastPathComponent == "downloads")
        #expect(provider.store.info(forKey: "123") == nil)
        #expect(try await service.downloadAsync().origin == .network)
        #expect(server.requestCount(path: "/asset") == 3)
    }

    /// Before, a download that its status (a `202 Accepted` without freshness) or its request (`no-store`) forbade
    /// storing was stored, the provider seeing its headers only: under `bypassServerCallOnFoundItem` every later
    /// download returned the placeholder from the cache (RFC 9111, sections 3 and 5.2.1.5).
    @Test(arguments: [false, true])
    func aDownloadItsStatusOrRequestForbidsStoringIsNotStored(asksNoStore: Bool) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([
            ("GET /asset", { _ in ServerReply(status: asksNoStore ? 200 : 202, body: Data("pending".utf8)) })
        ])
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder, policy: .bypassServerCallOnFoundItem)
        let client = try makeClient(folder)
        var request = HTTPRequest(.get, url: server.baseURL.appendingPathComponent("asset"))
        if asksNoStore { request.headers["Cache-Control"] = "no-store" }
        let service = DownloadService(request: request, cacheProvider: provider, cacheKey: "123", client: client)

        #expect(try await service.downloadAsync().origin == .network)
        #expect(try await service.downloadAsync().origin == .network)

        #expect(provider.store.info(forKey: "123") == nil)
        #expect(server.requestCount(path: "/asset") == 2)
    }

    /// The same, over a stored older version: it and its checkout are removed, never served in the new one's place.
    @Test func aDownloadThatMustNotBeStoredRemovesTheStoredOlderVersion() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let first = folder.url.appendingPathComponent("first")
        try Data("v1".utf8).write(to: first)
        _ = try provider.store(objectAt: first, key: "123", headers: ["ETag": "\"v1\""])
        let second = folder.url.appendingPathComponent("second")
        try Data("v2".utf8).write(to: second)

        let older = try #require(provider.find(key: "123"))

        let handedOut = try provider.store(objectAt: second, key: "123", headers: ["cache-control": "no-store"])

        #expect(handedOut == second)
        #expect(try Data(contentsOf: handedOut) == Data("v2".utf8))
        #expect(provider.store.info(forKey: "123") == nil)
        #expect(provider.find(key: "123") == nil)
        #expect(!FileManager.default.fileExists(atPath: older.path))
    }

    @Test func a304RenewsTheStoredEntryInPlaceWithoutRewritingItsBytes() async throws {
        // Given a stored download
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let body = pattern(count: 20_000)
        let server = try await startServer(VersionedResource(body: body, eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder)
        let service = try assetDownload(from: server, through: provider, key: "123", folder: folder)
        _ = try await service.downloadAsync()
        let entries = folder.url.appendingPathComponent("assets")
        let names = try FileManager.default.contentsOfDirectory(atPath: entries.path).filter { $0.hasSuffix(".strata") }
        let entry = entries.appendingPathComponent(try #require(names.first))
        let inode = try FileManager.default.attributesOfItem(atPath: entry.path)[.systemFileNumber] as? UInt64

        // When the server answers 304
        let renewed = try await service.downloadAsync()

        // Then the entry is the same file (same inode), its body bytes as they were
        #expect(renewed.origin == .revalidated)
        #expect(names.count == 1)
        #expect(try FileManager.default.attributesOfItem(atPath: entry.path)[.systemFileNumber] as? UInt64 == inode)
        #expect(try Data(contentsOf: entry).prefix(body.count) == body)
        #expect(provider.store.info(forKey: "123")?.eTag == "\"v1\"")
    }

    @Test func aChangedResourceReplacesTheStoredFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let resource = VersionedResource(body: pattern(count: 100), eTag: "\"v1\"")
        let server = try await startServer(resource)
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder)
        let service = try assetDownload(from: server, through: provider, folder: folder)

        _ = try await service.downloadAsync()
        resource.update(body: pattern(count: 300, seed: 9), eTag: "\"v2\"")
        let second = try await service.downloadAsync()

        #expect(second.origin == .network)
        #expect(try Data(contentsOf: second.result) == pattern(count: 300, seed: 9))
        #expect(provider.store.info(forKey: "k")?.eTag == "\"v2\"")
        #expect(provider.find(key: "k") == second.result)
    }

    @Test func bypassPolicyAnswersFromTheStoreWithoutARequest() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 100), eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder, policy: .bypassServerCallOnFoundItem)
        let service = try assetDownload(from: server, through: provider, folder: folder)

        let first = try await service.downloadAsync()
        let second = try await service.downloadAsync()

        #expect(first.origin == .network)
        #expect(second.origin == .cache)
        #expect(try Data(contentsOf: second.result) == pattern(count: 100))
        #expect(server.requestCount() == 1)
    }

    @Test func headerNamesAreCaseInsensitive() throws {
        // Given a download stored with lower-case header names
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let download = folder.url.appendingPathComponent("download")
        try pattern(count: 10).write(to: download)

        // When
        let url = try provider.store(
            objectAt: download,
            key: "k",
            headers: ["etag": "W/\"a\"", "LAST-MODIFIED": "Wed, 15 Nov 2023 00:00:00 GMT"]
        )

        // Then
        #expect(
            provider.headerValues(for: "k") == [
                "If-None-Match": "W/\"a\"", "If-Modified-Since": "Wed, 15 Nov 2023 00:00:00 GMT",
            ]
        )
        #expect(provider.headerValues(for: "other").isEmpty)
        #expect(try Data(contentsOf: url) == pattern(count: 10))
        #expect(!FileManager.default.fileExists(atPath: download.path))
    }

    @Test func theCountLimitEvictsTheLeastRecentlyUsedDownloadAndItsCheckout() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder, maxCount: 2)
        func store(_ key: String) throws -> URL {
            let download = folder.url.appendingPathComponent("download-\(key)")
            try Data(key.utf8).write(to: download)
            return try provider.store(objectAt: download, key: key, headers: ["ETag": "\"\(key)\""])
        }

        let first = try store("a")
        _ = try store("b")
        #expect(provider.find(key: "a") == first)  // a is now the most recently used
        _ = try store("c")

        #expect(provider.find(key: "b") == nil)
        #expect(throws: StrataError.self) { try provider.cachedItem(key: "b") }
        #expect(try Data(contentsOf: try provider.cachedItem(key: "a")) == Data("a".utf8))
        #expect(provider.store.count == 2)
        #expect(folder.contents("assets.checkout").count == 2)
    }

    @Test func aDownloadOverTheSizeLimitFailsTheDownloadAndStoresNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: pattern(count: 2_000), eTag: "\"v1\""))
        defer { Task { await server.stop() } }
        let provider = try makeProvider(folder, maxSize: 1_000)
        let service = try assetDownload(from: server, through: provider, folder: folder)

        let error = await #expect(throws: StrataError.self) { try await service.downloadAsync() }

        #expect(error?.code == .tooLarge)
        #expect(provider.store.count == 0)
        #expect(folder.contents("downloads").isEmpty)
        #expect(folder.contents("assets.checkout").isEmpty)
    }

    /// A newer version of a stored key that the store refuses as too large leaves no older one to serve in its place:
    /// the older entry and its checkout go, as `BlobCache` and `CacheManager` drop theirs. (They stayed: with
    /// `bypassServerCallOnFoundItem`, the replaced version was served from then on without a request.)
    @Test func aNewerVersionTooLargeToStoreLeavesNoOlderOneThere() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder, maxSize: 1_000)
        let small = folder.url.appendingPathComponent("small")
        try Data("v1".utf8).write(to: small)
        _ = try provider.store(objectAt: small, key: "k", headers: ["ETag": "\"v1\""])
        let large = folder.url.appendingPathComponent("large")
        try pattern(count: 2_000).write(to: large)

        let error = #expect(throws: StrataError.self) {
            try provider.store(objectAt: large, key: "k", headers: ["ETag": "\"v2\""])
        }

        #expect(error?.code == .tooLarge)
        #expect(provider.find(key: "k") == nil)
        #expect(provider.store.count == 0)
        #expect(folder.contents("assets.checkout").isEmpty)
    }

    @Test func aStoredDownloadIsFoundWithTheSystemClock() throws {
        // Given a store on the system clock (dates with sub-second precision)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "assets"))
        let provider = try FileCacheProvider(store: store)
        let keys = (0..<20).map { "k\($0)" }
        for key in keys {
            let download = folder.url.appendingPathComponent("download")
            try pattern(count: 10).write(to: download)
            _ = try provider.store(objectAt: download, key: key, headers: ["ETag": "\"v1\""])
        }
        for name in folder.contents("assets.checkout") {  // so the next reads check the entries out again
            try FileManager.default.removeItem(at: provider.checkoutFolder.appendingPathComponent(name))
        }

        // Then every entry is checked out again (its dates, read back from disk, may be rounded)
        for key in keys {
            #expect(try Data(contentsOf: try provider.cachedItem(key: key)) == pattern(count: 10))
            #expect(provider.find(key: key) != nil)
        }
    }

    @Test func a304ForAnEvictedEntryFailsWithNotFound() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)

        let error = #expect(throws: StrataError.self) { try provider.cachedItem(key: "gone") }

        #expect(error?.code == .notFound)
    }

    @Test func reopeningKeepsTheDownloadsAndRemovesStaleCheckouts() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        do {
            let provider = try makeProvider(folder)
            for key in ["k", "gone"] {
                let download = folder.url.appendingPathComponent("download")
                try pattern(count: 10).write(to: download)
                _ = try provider.store(objectAt: download, key: key, headers: ["ETag": "\"v1\""])
            }
            try provider.store.removeValue(forKey: "gone")
            try Data("stray".utf8).write(to: provider.checkoutFolder.appendingPathComponent("stray"))
        }

        let reopened = try makeProvider(folder)

        // The checkout of the removed key is gone; the user's stray file stays
        #expect(folder.contents("assets.checkout") == [FileCacheProvider.checkoutName("k"), "stray"].sorted())
        #expect(reopened.headerValues(for: "k")["If-None-Match"] == "\"v1\"")
        #expect(try Data(contentsOf: try reopened.cachedItem(key: "k")) == pattern(count: 10))
    }

    @Test func theProviderDeletesOnlyItsOwnCheckoutsInAFolderOfTheUsers() throws {
        // Given a checkout folder of the user's: files (one named like an older checkout), a subfolder with a
        // file, a link to a folder outside and a link named like a checkout
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let documents = folder.url.appendingPathComponent("Documents", isDirectory: true)
        let outside = folder.url.appendingPathComponent("outside", isDirectory: true)
        try FileManager.default.createDirectory(
            at: documents.appendingPathComponent("Photos"),
            withIntermediateDirectories: true
        )
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        try Data("letter".utf8).write(to: documents.appendingPathComponent("letter.txt"))
        try Data("old".utf8).write(to: documents.appendingPathComponent(String(repeating: "a", count: 32)))
        try Data("photo".utf8).write(to: documents.appendingPathComponent("Photos/photo.jpg"))
        try Data("elsewhere".utf8).write(to: outside.appendingPathComponent("kept.txt"))
        try FileManager.default.createSymbolicLink(
            at: documents.appendingPathComponent("Outside"),
            withDestinationURL: outside
        )
        try FileManager.default.createSymbolicLink(
            at: documents.appendingPathComponent(FileCacheProvider.checkoutName("never stored")),
            withDestinationURL: outside.appendingPathComponent("kept.txt")
        )
        try FileManager.default.createDirectory(
            at: documents.appendingPathComponent(FileCacheProvider.checkoutName("a folder")),
            withIntermediateDirectories: false
        )
        let before = try userItems(documents, outside)

        // When the provider opens on it, stores downloads, evicts, misses and reopens
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", countLimit: 1, clock: ManualClock())
        )
        var provider: FileCacheProvider? = try FileCacheProvider(store: store, checkoutFolder: documents)
        for key in ["first", "second"] {
            let download = folder.url.appendingPathComponent("download")
            try pattern(count: 10).write(to: download)
            _ = try provider?.store(objectAt: download, key: key, headers: [:])
        }
        #expect(provider?.find(key: "first") == nil)
        #expect(provider?.find(key: "never stored") == nil)
        #expect(provider?.find(key: "a folder") == nil)
        try store.removeValue(forKey: "second")
        #expect(provider?.find(key: "second") == nil)
        provider = nil
        _ = try FileCacheProvider(store: store, checkoutFolder: documents)

        // Then every item of the user's is intact, and the provider's own checkouts are gone
        #expect(try userItems(documents, outside) == before)
        let names = try FileManager.default.contentsOfDirectory(atPath: documents.path)
        #expect(!names.contains { $0.hasPrefix(".strata-checkout") })
        #expect(!names.contains(FileCacheProvider.checkoutName("first")))
        #expect(!names.contains(FileCacheProvider.checkoutName("second")))
    }

    @Test func aSecondProviderOnTheSameCheckoutFolderIsRefusedUntilTheFirstGoes() throws {
        // Given a provider on one store that has handed out a checkout from a checkout folder of its own
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let shared = folder.url.appendingPathComponent("checkouts", isDirectory: true)
        let first = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "first", clock: ManualClock())
        )
        let second = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "second", clock: ManualClock())
        )
        var provider: FileCacheProvider? = try FileCacheProvider(store: first, checkoutFolder: shared)
        let download = folder.url.appendingPathComponent("download")
        try Data("payload".utf8).write(to: download)
        let handedOut = try #require(try provider?.store(objectAt: download, key: "k", headers: [:]))
        let alias = folder.url.appendingPathComponent("alias", isDirectory: true)
        try FileManager.default.createSymbolicLink(at: alias, withDestinationURL: folder.url)

        // When a provider on another store is given the same folder, by its path or through a link to its parent
        let direct = #expect(throws: StrataError.self) { try FileCacheProvider(store: second, checkoutFolder: shared) }
        let aliased = #expect(throws: StrataError.self) {
            try FileCacheProvider(store: second, checkoutFolder: alias.appendingPathComponent("checkouts"))
        }

        // Then it is refused as in use, and the first provider's checkout is still there; so is a checkout folder
        // that is a store's own folder
        #expect(direct?.code == .alreadyInUse)
        #expect(aliased?.code == .alreadyInUse)
        let storesOwn = #expect(throws: StrataError.self) {
            try FileCacheProvider(store: second, checkoutFolder: second.folderURL)
        }
        #expect(storesOwn?.code == .alreadyInUse)
        #expect(try Data(contentsOf: handedOut) == Data("payload".utf8))

        // And once the first provider goes, the folder is free again
        provider = nil
        #expect(try FileCacheProvider(store: second, checkoutFolder: shared).checkoutFolder == shared)
    }

    /// Keys that differ only in Unicode normalisation are one entry of the store, and one checkout: a lookup under the
    /// NFD spelling hands out the checkout the NFC store made, which the next store keeps. (The checkout's name hashed
    /// the key's raw bytes: the lookup wrote a second checkout, which the next store deleted as belonging to no key.)
    @Test func keysThatDifferOnlyInNormalisationShareOneCheckout() throws {
        // Given a download stored under "café" in NFC
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let provider = try makeProvider(folder)
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let download = folder.url.appendingPathComponent("download")
        try Data("menu".utf8).write(to: download)
        let stored = try provider.store(objectAt: download, key: composed, headers: ["ETag": "\"v1\""])

        // When it is looked up under the NFD spelling, and another download is then stored
        let found = try #require(provider.find(key: decomposed))
        let other = folder.url.appendingPathComponent("other")
        try Data("other".utf8).write(to: other)
        _ = try provider.store(objectAt: other, key: "other", headers: [:])

        // Then both spellings hand out the one checkout, still there
        #expect(found == stored)
        #expect(try Data(contentsOf: found) == Data("menu".utf8))
        #expect(folder.contents("assets.checkout").count == 2)
    }

    /// Every item in the two folders (not following links): path → bytes, link destination or `folder`.
    private func userItems(_ folders: URL...) throws -> [String: String] {
        var result: [String: String] = [:]
        let manager = FileManager.default
        for folder in folders {
            guard let enumerator = manager.enumerator(atPath: folder.path) else { continue }
            while let name = enumerator.nextObject() as? String {
                let path = folder.appendingPathComponent(name).path
                let type = try manager.attributesOfItem(atPath: path)[.type] as? FileAttributeType
                switch type {
                case .typeSymbolicLink?: result[path] = try manager.destinationOfSymbolicLink(atPath: path)
                case .typeDirectory?: result[path] = "folder"
                default:
                    // The provider's own: its checkouts, and the lock file of its claim on the folder
                    if FileCacheProvider.isCheckoutName(name) || name == ".strata-lock" { continue }
                    result[path] = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
                }
            }
        }
        return result
    }
}
