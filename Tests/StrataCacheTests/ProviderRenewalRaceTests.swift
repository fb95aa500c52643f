import Foundation
import LoopbackServer
import Strata
import StrataFile
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataCache

/// A `304 Not Modified` that arrives after a newer version of its key was stored is about the older version: it
/// neither removes the newer one nor renews it with the older one's validators.
struct ProviderRenewalRaceTests {
    /// A download of `k` that sent `If-None-Match: "A"`, answered 304 (`ETag: "A"`) only after another download
    /// stored version B of `k`: the late 304 answers with B, which stays stored with its own `ETag`. (The provider
    /// compared the 304's `ETag` with the stored B's, removed B and failed the download.)
    @Test(.timeLimit(.minutes(1)))
    func aLateNotModifiedLeavesTheVersionStoredMeanwhile() async throws {
        // Given version A stored, and a server that answers the revalidation of A only once B has been stored
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: ManualClock())
        )
        let provider = try FileCacheProvider(store: store)
        let newer = folder.url.appendingPathComponent("newer")
        let server = try await LoopbackServer.start([
            (
                "GET /asset",
                { request in
                    guard request.headers["if-none-match"] == "\"A\"" else {
                        return ServerReply(status: 200, headers: ["ETag": "\"A\""], body: Data("A".utf8))
                    }
                    // The other download of the key stores B while this answer is on its way.
                    try Data("B".utf8).write(to: newer)
                    _ = try provider.store(objectAt: newer, key: "k", headers: ["ETag": "\"B\""])
                    return ServerReply(status: 304, headers: ["ETag": "\"A\""])
                }
            )
        ])
        defer { Task { await server.stop() } }
        let service = try assetDownload(from: server, through: provider, folder: folder)
        #expect(try await service.downloadAsync().origin == .network)

        // When A is revalidated, and the 304 arrives after B was stored
        let late = try await service.downloadAsync()

        // Then the download answers with B, which stays stored with its own ETag
        #expect(late.origin == .revalidated)
        #expect(try Data(contentsOf: late.result) == Data("B".utf8))
        #expect(store.info(forKey: "k")?.eTag == "\"B\"")
        #expect(try Data(contentsOf: try provider.cachedItem(key: "k")) == Data("B".utf8))
    }

    /// The same store of B landing after the download compared the provider's headers with those it sent, and before
    /// `renewItem` looks at the entry: the download answers with B, which stays stored with its own `ETag`. (The
    /// provider took the 304 about A for a lie about B: it removed B and the download failed.)
    @Test(.timeLimit(.minutes(1)))
    func aNotModifiedRenewingAfterANewerVersionLandedKeepsIt() async throws {
        // Given version A stored, a server that answers its revalidation 304, and a provider that stores B just
        // before it renews
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: ManualClock())
        )
        let files = try FileCacheProvider(store: store)
        let server = try await LoopbackServer.start([
            (
                "GET /asset",
                { request in
                    guard request.headers["if-none-match"] == "\"A\"" else {
                        return ServerReply(status: 200, headers: ["ETag": "\"A\""], body: Data("A".utf8))
                    }
                    return ServerReply(status: 304, headers: ["ETag": "\"A\""])
                }
            )
        ])
        defer { Task { await server.stop() } }
        let newer = folder.url.appendingPathComponent("newer")
        let provider = StoringBeforeRenewal(files) {
            try Data("B".utf8).write(to: newer)
            _ = try files.store(objectAt: newer, key: "k", headers: ["ETag": "\"B\""])
        }
        let service = try assetDownload(from: server, through: provider, folder: folder)
        #expect(try await service.downloadAsync().origin == .network)

        // When A is revalidated, and B is stored between the headers' check and the renewal
        let late = try await service.downloadAsync()

        // Then the download answers with B, which stays stored with its own ETag
        #expect(provider.stored.withLock { $0 })
        #expect(late.origin == .revalidated)
        #expect(try Data(contentsOf: late.result) == Data("B".utf8))
        #expect(store.info(forKey: "k")?.eTag == "\"B\"")
    }

    /// The same store of B landing inside `renewItem`, between its look at the entry and its renewal: B keeps its own
    /// `ETag`. (The renewal was unconditional and stamped A's validators onto B, so B passed for A.)
    @Test func aRenewalNeverLandsOnAVersionStoredDuringIt() async throws {
        // Given version A stored, over a clock that lets B be stored at renewItem's second reading
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (store, provider, clock) = try versionAStoredWithBDuringRenewal(in: folder)

        // When a 304 about A renews the entry
        try await provider.renewItem(
            key: "k",
            notModified: HTTPResponse(
                status: 304,
                headers: ["ETag": "\"A\"", "Last-Modified": "Tue, 14 Nov 2023 22:13:20 GMT"]
            )
        )

        // Then B was stored during the renewal, and keeps its own validators
        #expect(clock.ran)
        #expect(store.info(forKey: "k")?.eTag == "\"B\"")
        #expect(store.info(forKey: "k")?.lastModified == nil)
        #expect(try Data(contentsOf: try provider.cachedItem(key: "k")) == Data("BB".utf8))
    }

    /// The same store of B landing inside `renewItem` given a 304 about A that says `no-store`, between its look at A
    /// and its removal: B stays, with its own validators and its checkout. (Only the version looked at is removed.)
    @Test func aNoStoreNotModifiedKeepsAVersionStoredDuringIt() async throws {
        // Given version A stored, over a clock that lets B be stored at renewItem's second reading
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (store, provider, clock) = try versionAStoredWithBDuringRenewal(in: folder)

        // When a 304 about A that says `no-store` renews the entry
        try await provider.renewItem(
            key: "k",
            notModified: HTTPResponse(status: 304, headers: ["ETag": "\"A\"", "Cache-Control": "no-store"])
        )

        // Then B was stored during the renewal, and is still stored and handed out
        #expect(clock.ran)
        #expect(store.info(forKey: "k")?.eTag == "\"B\"")
        #expect(try Data(contentsOf: try provider.cachedItem(key: "k")) == Data("BB".utf8))
    }

    /// A provider in `folder` holding version A of `k` (`"A"`, `ETag: "A"`), over a clock that stores version B
    /// (`"BB"`, `ETag: "B"`) at its second reading from now: `renewItem`'s, between its look at the entry and what it
    /// does to it.
    private func versionAStoredWithBDuringRenewal(
        in folder: TemporaryFolder
    ) throws -> (FileDataSource, FileCacheProvider, SteppingClock) {
        let clock = SteppingClock()
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: clock)
        )
        let provider = try FileCacheProvider(store: store)
        let older = folder.url.appendingPathComponent("older")
        try Data("A".utf8).write(to: older)
        _ = try provider.store(objectAt: older, key: "k", headers: ["ETag": "\"A\""])
        let newer = folder.url.appendingPathComponent("newer")
        try Data("BB".utf8).write(to: newer)
        clock.run(atReading: 2) {
            _ = try? provider.store(objectAt: newer, key: "k", headers: ["ETag": "\"B\""])
        }
        return (store, provider, clock)
    }
}

/// A `FileCacheProvider` that runs `beforeRenewal` once, at the first `renewItem`, before the provider renews: what
/// another download of the key storing a newer version at that moment does.
private struct StoringBeforeRenewal: CacheProvider {
    let files: FileCacheProvider
    let beforeRenewal: @Sendable () throws -> Void
    /// Whether `beforeRenewal` ran.
    let stored = Locked(false)

    init(_ files: FileCacheProvider, beforeRenewal: @escaping @Sendable () throws -> Void) {
        self.files = files
        self.beforeRenewal = beforeRenewal
    }

    var cachePolicy: CachePolicy { files.cachePolicy }
    func find(key: String) -> URL? { files.find(key: key) }
    func cachedItem(key: String) throws -> URL { try files.cachedItem(key: key) }
    func headerValues(for cacheKey: String) -> [String: String] { files.headerValues(for: cacheKey) }

    func store(objectAt file: URL, key: String, headers: [String: String]) throws -> URL {
        try files.store(objectAt: file, key: key, headers: headers)
    }

    func renewItem(key: String, notModified response: HTTPResponse) async throws {
        let first = stored.withLock { stored in
            defer { stored = true }
            return !stored
        }
        if first { try beforeRenewal() }
        try await files.renewItem(key: key, notModified: response)
    }
}
