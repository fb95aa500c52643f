import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataFile
import StrataMemory
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

/// A `304` renews the version its conditional request named, never a newer one another read stored while it was on
/// its way: `CacheRepository(main: http, cache: store)` over real stores and a loopback server.
struct NotModifiedVersionTests {
    /// The stores the repository's cache is tried with.
    enum Store: CaseIterable, Sendable {
        case memory, file, memoryThatCannotRenew
    }

    /// A memory store that cannot renew an entry's metadata in place (``renewMetadata(_:forKey:)`` answers `false`),
    /// as a custom ``KeyValueStore`` may: the repository falls back to writing the value again.
    struct NotRenewing: KeyValueStore {
        typealias Value = Data

        let base: MemoryDataSource<Data>

        func entry(forKey key: String) -> StoredEntry<Data>? { base.entry(forKey: key) }

        func setValue(_ value: Data, forKey key: String, metadata: EntryMetadata) throws {
            try base.setValue(value, forKey: key, metadata: metadata)
        }

        func renewMetadata(_ metadata: EntryMetadata, forKey key: String) -> Bool { false }

        func removeValue(forKey key: String) -> Bool { base.removeValue(forKey: key) }

        func removeAll() { base.removeAll() }

        func sortedKeys() -> [String] { base.sortedKeys() }

        var keyOfValue: (@Sendable (Data) -> String)? { base.keyOfValue }

        var storedListAnswer: StoredListAnswer { base.storedListAnswer }
    }

    /// A server of one resource: the first conditional request waits at `held`, then answers `304` for version 1,
    /// fresh for an hour; every other request answers the next version (`v1`, `v2`, …, `ETag` of its name), fresh for
    /// a minute (version 1 with `firstCacheControl`).
    final class Origin: Sendable {
        let held = AsyncGate(isOpen: false)
        let firstCacheControl: String
        private let counts = Locked((served: 0, conditional: 0))

        init(firstCacheControl: String = "max-age=60") {
            self.firstCacheControl = firstCacheControl
        }

        var route: @Sendable (ServerRequest) async throws -> ServerReply {
            { [self] request in
                let isConditional = request.headers["if-none-match"] != nil
                let (version, isHeld) = counts.withLock { counts in
                    if isConditional { counts.conditional += 1 }
                    let isHeld = isConditional && counts.conditional == 1
                    if !isHeld { counts.served += 1 }
                    return (counts.served, isHeld)
                }
                guard !isHeld else {
                    await held.enter()
                    return ServerReply(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=3600"])
                }
                return ServerReply(
                    status: 200,
                    headers: [
                        "ETag": "\"v\(version)\"", "Cache-Control": version == 1 ? firstCacheControl : "max-age=60",
                    ],
                    body: Data("v\(version)".utf8)
                )
            }
        }
    }

    /// Before, the late 304 renewed version 2 with version 1's `ETag` and the 304's hour: the cache served version 2 as
    /// version 1, fresh for an hour, and revalidated it with a tag the server never gave it. A store that cannot renew
    /// had version 1 written again over version 2, with the 304's hour.
    @Test(.timeLimit(.minutes(1)), arguments: Store.allCases)
    func aLateNotModifiedLeavesTheVersionAnotherReadStored(_ kind: Store) async throws {
        let origin = Origin()
        let server = try await LoopbackServer.start([("GET /doc", origin.route)])
        // A test that fails with the 304 held lets it go, so the server can stop.
        defer {
            origin.held.open()
            Task { await server.stop() }
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        switch kind {
        case .memory:
            try await Self.race(MemoryDataSource<Data>(configuration: .init(clock: clock)), origin, server, clock)
        case .file:
            let store = try FileDataSource(
                configuration: .init(location: .url(folder.url), identifier: "docs", clock: clock)
            )
            try await Self.race(store, origin, server, clock)
        case .memoryThatCannotRenew:
            let store = NotRenewing(base: MemoryDataSource<Data>(configuration: .init(clock: clock)))
            try await Self.race(store, origin, server, clock)
        }
    }

    /// Reader A revalidates the stale version 1 of `/doc`; while its `304` is held, reader B reads main
    /// (`.mainSync`) and stores version 2; then A's `304` arrives.
    private static func race<S: KeyValueStore<Data>>(
        _ store: S,
        _ origin: Origin,
        _ server: LoopbackServer,
        _ clock: ManualClock
    ) async throws {
        // Given version 1 of the document, cached and stale
        let http = NetworkGetDataSource<Data>(
            client: HTTPClient(configuration: .init(clock: clock)),
            request: { _ in HTTPRequest(baseURL: server.baseURL, path: "doc") },
            decode: IdentityMapper<Data>(),
            decodeAll: ClosureMapper<Data, [Data]> { [$0] }
        )
        let repository = CacheRepository(main: http, cache: store.validated(by: .fresh(clock: clock)))
        #expect(try await repository.get(KeyQuery("doc"), operation: .cacheSync) == Data("v1".utf8))
        clock.advance(by: .seconds(61))

        // When reader A's conditional request is on its way, reader B stores version 2, and then A's 304 arrives
        let revalidating = Task { try await repository.get(KeyQuery("doc"), operation: .cacheSync) }
        await origin.held.waitForEntered(1)
        #expect(try await repository.get(KeyQuery("doc"), operation: .mainSync) == Data("v2".utf8))
        origin.held.open()

        // Then A has the version its 304 confirmed, and the cache keeps version 2 as B stored it: its own tag, fresh
        // for its own minute
        #expect(try await revalidating.value == Data("v1".utf8))
        let cached = try await store.getEntry(KeyQuery("doc"))
        #expect(cached.value == Data("v2".utf8))
        #expect(cached.metadata.eTag == "\"v2\"")
        #expect(cached.metadata.freshUntil == clock.now().addingTimeInterval(60))
    }

    /// A background revalidation's late `304` for version 1, after a fetch past the stale window stored version 2.
    /// Before, it renewed version 2's record on disk for the 304's hour: version 2 was served from disk long after its
    /// own minute.
    @Test(.timeLimit(.minutes(1)))
    func aLateBackgroundNotModifiedLeavesTheBlobAnotherFetchStored() async throws {
        let origin = Origin(firstCacheControl: "max-age=60, stale-while-revalidate=30")
        try await withFixture([("GET /blob", origin.route)]) { fixture in
            defer { origin.held.open() }
            // Given version 1, stale inside its 30 s window: served stale, revalidated in the background (held)
            let cache = try fixture.makeCache()
            #expect(try await cache.fetch(from: fixture.url("blob")) == Data("v1".utf8))
            fixture.clock.advance(by: .seconds(70))
            #expect(try await cache.fetchWithLayer(from: fixture.url("blob")).origin == .stale)
            await origin.held.waitForEntered(1)

            // When a fetch past the window stores version 2, and then the background revalidation's 304 arrives
            fixture.clock.advance(by: .seconds(30))
            let second = try await cache.fetchWithLayer(from: fixture.url("blob"))
            #expect(second.origin == .network)
            #expect(second.data == Data("v2".utf8))
            origin.held.open()
            await cache.waitForBackgroundRefreshes()

            // Then version 2 keeps its own minute: past it, the next fetch asks the server again
            fixture.clock.advance(by: .seconds(61))
            let third = try await cache.fetchWithLayer(from: fixture.url("blob"))
            #expect(third.origin == .network)
            #expect(third.data == Data("v3".utf8))
        }
    }
}
