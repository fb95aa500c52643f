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
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The provider lives inside, and is gone before its folder is removed: a provider still held (by a server's
        // route stopped later) while its folder went kept the folder's inode registered, and the next test's
        // checkout folder, given that inode again, was refused as in use.
        try await lateNotModified(in: folder)
    }

    private func lateNotModified(in folder: TemporaryFolder) async throws {
        // Given version A stored, and a server that answers the revalidation of A only once B has been stored
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: ManualClock())
        )
        let provider = try FileCacheProvider(store: store)
        let newer = folder.url.appendingPathComponent("newer")
        let server = try await LoopbackServer.start([
            (
                "GET /asset",
                { [weak provider] request in
                    guard request.headers["if-none-match"] == "\"A\"" else {
                        return ServerReply(status: 200, headers: ["ETag": "\"A\""], body: Data("A".utf8))
                    }
                    // The other download of the key stores B while this answer is on its way.
                    try Data("B".utf8).write(to: newer)
                    _ = try provider?.store(objectAt: newer, key: "k", headers: ["ETag": "\"B\""])
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
        let (store, files) = try providerWithoutA(in: folder)
        let server = try await serverRevalidatingA(with: ["ETag": "\"A\""])
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

    /// A 304 about A that says `no-store`, with B stored after the download took the provider's file and before A is
    /// dropped: B stays stored, and the download answers with a file of the caller's own. (The download handed its
    /// copy to the provider as a download that must not be stored, and the provider dropped whatever it held: B.)
    @Test(.timeLimit(.minutes(1)))
    func aNoStoreNotModifiedLeavesTheVersionStoredWhileItWasHandled() async throws {
        // Given version A stored, a server that answers its revalidation 304 with `no-store`, and a provider that
        // stores B when the download asks for its file
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (store, files) = try providerWithoutA(in: folder)
        let server = try await serverRevalidatingA(with: ["ETag": "\"A\"", "Cache-Control": "no-store"])
        defer { Task { await server.stop() } }
        let newer = folder.url.appendingPathComponent("newer")
        let provider = StoringAtLookup(files) {
            try Data("B".utf8).write(to: newer)
            _ = try files.store(objectAt: newer, key: "k", headers: ["ETag": "\"B\""])
        }
        let service = try assetDownload(from: server, through: provider, folder: folder)
        #expect(try await service.downloadAsync().origin == .network)

        // When A is revalidated, and B is stored while the 304 is handled
        let answered = try await service.downloadAsync()

        // Then B stays stored and handed out, and the download's file is the caller's own
        #expect(provider.stored.withLock { $0 })
        #expect(answered.origin == .revalidated)
        #expect(store.info(forKey: "k")?.eTag == "\"B\"")
        let held = try files.cachedItem(key: "k")
        #expect(try Data(contentsOf: held) == Data("B".utf8))
        #expect(answered.result != held)
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

    /// A provider in `folder` over a store with a clock that stands still, holding nothing yet.
    private func providerWithoutA(in folder: TemporaryFolder) throws -> (FileDataSource, FileCacheProvider) {
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "assets", clock: ManualClock())
        )
        return (store, try FileCacheProvider(store: store))
    }

    /// A server whose `/asset` is version A (`"A"`, `ETag: "A"`), answering a request for A's revalidation
    /// (`If-None-Match: "A"`) with a 304 with `headers`.
    private func serverRevalidatingA(with headers: [String: String]) async throws -> LoopbackServer {
        try await LoopbackServer.start([
            (
                "GET /asset",
                { request in
                    guard request.headers["if-none-match"] == "\"A\"" else {
                        return ServerReply(status: 200, headers: ["ETag": "\"A\""], body: Data("A".utf8))
                    }
                    return ServerReply(status: 304, headers: headers)
                }
            )
        ])
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

/// A `FileCacheProvider` that runs `atLookup` once, at the first ``CacheProvider/cachedItem(key:)``, before the
/// provider answers: what another download of the key storing a newer version while a 304 is handled does.
private struct StoringAtLookup: CacheProvider {
    let files: FileCacheProvider
    let atLookup: @Sendable () throws -> Void
    /// Whether `atLookup` ran.
    let stored = Locked(false)

    init(_ files: FileCacheProvider, atLookup: @escaping @Sendable () throws -> Void) {
        self.files = files
        self.atLookup = atLookup
    }

    var cachePolicy: CachePolicy { files.cachePolicy }
    func find(key: String) -> URL? { files.find(key: key) }
    func headerValues(for cacheKey: String) -> [String: String] { files.headerValues(for: cacheKey) }

    func cachedItem(key: String) throws -> URL {
        let first = stored.withLock { stored in
            defer { stored = true }
            return !stored
        }
        if first { try atLookup() }
        return try files.cachedItem(key: key)
    }

    func store(objectAt file: URL, key: String, headers: [String: String]) throws -> URL {
        try files.store(objectAt: file, key: key, headers: headers)
    }

    func renewItem(key: String, notModified response: HTTPResponse, sentWith headers: [String: String]) async throws {
        try await files.renewItem(key: key, notModified: response, sentWith: headers)
    }
}
