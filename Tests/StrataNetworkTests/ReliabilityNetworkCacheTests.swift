import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

/// A cache in front of a real server on 127.0.0.1 when the server misbehaves or goes away: a 304 with
/// nothing cached, garbage entity tags, a server that is down while the cached value is stale.
struct ReliabilityNetworkCacheTests {
    @Test(.timeLimit(.minutes(1)))
    func aNotModifiedWithNothingCachedIsATypedErrorAndCachesNothing() async throws {
        // Given a server that answers every conditional GET with 304, and a repository whose network side
        // sends a validator the app remembered while its cache is empty
        let server = try await LoopbackServer.start([
            (
                "GET /item",
                { request in
                    guard request.headers["if-none-match"] == nil else {
                        return ServerReply(status: 304, headers: ["ETag": "\"v1\""])
                    }
                    return ServerReply(status: 200, body: Data(#"{"name":"fresh"}"#.utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let cache = MemoryDataSource<Item>()
        let network = NetworkGetDataSource<Item>(client: makeClient()) { _ in
            HTTPRequest(baseURL: server.baseURL, path: "item").withConditions(ConditionalHeaders(eTag: "\"v1\""))
        }
        let repository = CacheRepository(main: network, cache: cache)

        // When it reads, with and without a fallback rule that accepts any error
        for operation: any RepositoryOperation in [.cacheSync, .cacheSync(fallback: { _ in true }), .mainSync] {
            let error = await strataError { _ = try await repository.get(KeyQuery("item"), operation: operation) }

            // Then the 304 to a request that asked for none is a typed, non-retryable error: there is no stale
            // value to serve in its place
            #expect(error?.code == .unexpectedResponse, "\(operation): \(String(describing: error))")
            #expect(error?.httpFailure?.status == 304)
            #expect(error?.isRetryable == false)
        }
        #expect(server.requestCount(path: "/item") == 3)
        #expect(cache.entry(forKey: "item") == nil)
    }

    @Test(
        .timeLimit(.minutes(1)),
        arguments: ["v1", "\"v1", "v1\"", "W/v1", "W/", "\"a\"b\"", "\"with space\"", "*", "\"v1\", \"v2\""]
    )
    func anInvalidEntityTagIsNeverSentBack(eTag: String) async throws {
        // Given a server whose ETag is garbage (unquoted, unterminated, a list, a wildcard)
        let server = try await LoopbackServer.start([
            ("GET /item", { _ in ServerReply(status: 200, headers: ["ETag": eTag], body: Data("body".utf8)) })
        ])
        defer { Task { await server.stop() } }
        let client = makeClient()
        let request = HTTPRequest(baseURL: server.baseURL, path: "item")

        // When a first response is read and its validators are sent back
        let first = try await client.send(request)
        let conditions = ConditionalHeaders(response: first)
        let second = try await client.send(request.withConditions(conditions))

        // Then nothing crashed, the tag is not used to revalidate, and the server answered in full
        #expect(first.body == Data("body".utf8))
        #expect(conditions.eTag == nil)
        #expect(conditions.isEmpty)
        #expect(second.status == 200)
        #expect(server.requests.count == 2)
        #expect(server.requests.allSatisfy { $0.headers["if-none-match"] == nil }, "\(server.requests)")
        #expect(!ConditionalHeaders.isValidEntityTag(eTag))
    }

    @Test(.timeLimit(.minutes(1)))
    func validEntityTagsAreSentBackAsIs() async throws {
        let server = try await LoopbackServer.start([
            (
                "GET /item",
                { request in
                    if let tag = request.headers["if-none-match"] {
                        return ServerReply(status: 304, headers: ["ETag": tag])
                    }
                    return ServerReply(status: 200, headers: ["ETag": "W/\"v-1\""], body: Data("body".utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let client = makeClient()
        let request = HTTPRequest(baseURL: server.baseURL, path: "item")

        let first = try await client.send(request)
        let second = try await client.send(request, ifModifiedSince: ConditionalHeaders(response: first))

        guard case .notModified = second else {
            Issue.record("Expected not modified, got \(second)")
            return
        }
        #expect(server.requests.last?.headers["if-none-match"] == "W/\"v-1\"")
    }

    /// Where the next request of the stale-serving test goes: the server is restarted on a new port.
    private final class Origin: Sendable {
        private let url = Locked<URL?>(nil)

        var baseURL: URL? {
            get { url.withLock { $0 } }
            set { url.withLock { $0 = newValue } }
        }
    }

    /// A memory cache validated by freshness, in front of `server`'s `/item`, both on one manual clock.
    private static func freshnessCache(
        of server: LoopbackServer,
        path: String = "item"
    ) -> (
        ManualClock, MemoryDataSource<Item>,
        CacheRepository<
            NetworkGetDataSource<Item>, ValidatedDataSource<MemoryDataSource<Item>, FreshnessValidator<Item>>
        >
    ) {
        let clock = ManualClock()
        let client = HTTPClient(transport: URLSessionTransport(), configuration: .init(clock: clock))
        let network = NetworkGetDataSource<Item>(client: client) { _ in
            HTTPRequest(baseURL: server.baseURL, path: path)
        }
        let memory = MemoryDataSource<Item>(configuration: .init(clock: clock))
        return (
            clock, memory, CacheRepository(main: network, cache: memory.validated(by: FreshnessValidator(clock: clock)))
        )
    }

    /// A server that answers `/item` with `{"name": name}`.
    private static func itemServer(_ name: String) async throws -> LoopbackServer {
        try await LoopbackServer.start([
            ("GET /item", { _ in ServerReply(status: 200, body: Data(#"{"name":"\#(name)"}"#.utf8)) })
        ])
    }

    @Test(.timeLimit(.minutes(1)))
    func aStaleValueIsServedWhileTheServerIsDownAndRefreshedWhenItIsBack() async throws {
        // Given a memory cache valid for 60 s (manual clock) in front of a server
        let clock = ManualClock()
        let origin = Origin()
        let first = try await Self.itemServer("v1")
        origin.baseURL = first.baseURL
        let network = NetworkGetDataSource<Item>(client: makeClient()) { _ in
            guard let baseURL = origin.baseURL else { throw StrataError(.network, "no server") }
            return HTTPRequest(baseURL: baseURL, path: "item")
        }
        let memory = MemoryDataSource<Item>(configuration: .init(clock: clock))
        let repository = CacheRepository(
            main: network,
            cache: memory.validated(by: .maxAge(.seconds(60), clock: clock))
        )
        let serveStale = CacheSyncOperation(fallback: { $0.strataCode == .network })
        let query = KeyQuery("item")

        // When the value is read, then goes stale, then the server stops
        #expect(try await repository.get(query, operation: serveStale) == Item(name: "v1"))
        #expect(try await repository.get(query, operation: serveStale) == Item(name: "v1"))
        #expect(first.requestCount(path: "/item") == 1)
        clock.advance(by: .seconds(61))
        await first.stop()
        // Asked at port 1, which no test's server takes, the request is refused as the stopped server's would be; the
        // stopped server's own port may be handed to another test's server meanwhile, which may not answer at all.
        origin.baseURL = URL(string: "http://127.0.0.1:1")

        // Then the stale value is served while the server is down; without the fallback the error shows
        #expect(try await repository.get(query, operation: serveStale) == Item(name: "v1"))
        #expect(try await repository.get(query, operation: serveStale) == Item(name: "v1"))
        let down = await strataError { _ = try await repository.get(query, operation: .cacheSync) }
        #expect(down?.code == .network, "\(String(describing: down))")
        #expect(memory.entry(forKey: "item")?.value == Item(name: "v1"))

        // When the server is back with a new value
        let second = try await Self.itemServer("v2")
        defer { Task { await second.stop() } }
        origin.baseURL = second.baseURL

        // Then the next read refreshes the cache, and the one after is a fresh cache hit
        #expect(try await repository.get(query, operation: serveStale) == Item(name: "v2"))
        #expect(try await repository.get(query, operation: serveStale) == Item(name: "v2"))
        #expect(second.requestCount(path: "/item") == 1)
        #expect(memory.entry(forKey: "item")?.value == Item(name: "v2"))
        #expect(memory.entry(forKey: "item")?.storedAt == clock.now())
    }

    /// A stale entry revalidated by a full answer that must not be stored (`no-store`): the answer is returned, and
    /// the older entry is gone from the cache, so a later read that falls back on the cache cannot serve it.
    @Test(.timeLimit(.minutes(1)))
    func aNoStoreAnswerToARevalidationRemovesTheOlderEntry() async throws {
        // Given an entry stored from a response fresh for 60 s, whose server then answers `no-store`
        let version = Locked(1)
        let server = try await LoopbackServer.start([
            (
                "GET /item",
                { _ in
                    let current = version.withLock { $0 }
                    let control = current == 1 ? "max-age=60" : "no-store"
                    return ServerReply(
                        status: 200,
                        headers: ["Cache-Control": control, "ETag": "\"v\(current)\""],
                        body: Data(#"{"name":"v\#(current)"}"#.utf8)
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let (clock, memory, repository) = Self.freshnessCache(of: server)
        let query = KeyQuery("item")
        #expect(try await repository.get(query, operation: .cacheSync) == Item(name: "v1"))

        // When it is stale and read again
        clock.advance(by: .seconds(61))
        version.withLock { $0 = 2 }
        #expect(try await repository.get(query, operation: .cacheSync) == Item(name: "v2"))

        // Then v1 is no longer in the cache
        #expect(memory.value(forKey: "item") == nil)
        #expect(server.requestCount(path: "/item") == 2)
    }

    /// A stale entry revalidated by a `304` that says `no-store` (RFC 9111, section 4.3.4: its fields replace the
    /// stored ones): the value is returned, and the entry is gone from the cache — it stayed, and a later read that
    /// falls back on the cache when the server is down served it.
    @Test(.timeLimit(.minutes(1)))
    func aNoStoreNotModifiedRemovesTheOlderEntry() async throws {
        // Given an entry stored from a response fresh for 60 s, whose server then answers 304 with `no-store`
        let server = try await LoopbackServer.start([
            (
                "GET /item",
                { request in
                    guard request.headers["if-none-match"] == nil else {
                        return ServerReply(status: 304, headers: ["Cache-Control": "no-store", "ETag": "\"v1\""])
                    }
                    return ServerReply(
                        status: 200,
                        headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""],
                        body: Data(#"{"name":"v1"}"#.utf8)
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let (clock, memory, repository) = Self.freshnessCache(of: server)
        let query = KeyQuery("item")
        #expect(try await repository.get(query, operation: .cacheSync) == Item(name: "v1"))

        // When it is stale and read again
        clock.advance(by: .seconds(61))
        #expect(try await repository.get(query, operation: .cacheSync) == Item(name: "v1"))

        // Then it is no longer in the cache
        #expect(memory.value(forKey: "item") == nil)
        #expect(server.requestCount(path: "/item") == 2)
    }

    /// Before, a list read (`getAll`) kept no caching rule of its response: a `no-store` list was stored, and one fresh
    /// for 60 s was served from the cache for as long as the cache kept it.
    @Test(.timeLimit(.minutes(1)), arguments: ["no-store", "max-age=60"])
    func aListReadKeepsToItsResponsesCachingRules(cacheControl: String) async throws {
        let body = Data(#"[{"name":"a"},{"name":"b"}]"#.utf8)
        let server = try await LoopbackServer.start([
            ("GET /items", { _ in ServerReply(status: 200, headers: ["Cache-Control": cacheControl], body: body) })
        ])
        defer { Task { await server.stop() } }
        let (clock, memory, repository) = Self.freshnessCache(of: server, path: "items")
        let query = IdsQuery(["a", "b"])

        #expect(try await repository.getAll(query, operation: .cacheSync) == [Item(name: "a"), Item(name: "b")])
        if cacheControl == "no-store" {
            #expect(memory.value(forKey: "a") == nil)
        } else {
            // Fresh: answered by the cache until its lifetime ends
            #expect(try await repository.getAll(query, operation: .cacheSync).count == 2)
            #expect(server.requestCount(path: "/items") == 1)
            clock.advance(by: .seconds(61))
        }
        #expect(try await repository.getAll(query, operation: .cacheSync).count == 2)
        #expect(server.requestCount(path: "/items") == 2)
    }

    /// A shared cache whose requests carry `Authorization`, revalidating an entry stored from a `public` answer: a 304
    /// without `Cache-Control` keeps the stored directives (RFC 9111, section 4.3.4), so the entry is renewed, never
    /// dropped as one the 304 alone would not let a shared cache store.
    @Test(.timeLimit(.minutes(1)))
    func aSharedCachesBareNotModifiedKeepsAnAuthorizedPublicEntry() async throws {
        let server = try await LoopbackServer.start([
            (
                "GET /item",
                { request in
                    guard request.headers["if-none-match"] == nil else {
                        return ServerReply(status: 304, headers: ["ETag": "\"v1\""])
                    }
                    return ServerReply(
                        status: 200,
                        headers: ["Cache-Control": "public, max-age=60", "ETag": "\"v1\""],
                        body: Data(#"{"name":"v1"}"#.utf8)
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let client = HTTPClient(
            transport: URLSessionTransport(),
            configuration: .init(headers: ["Authorization": "Bearer token"], clock: clock)
        )
        var network = NetworkGetDataSource<Item>(client: client) { _ in
            HTTPRequest(baseURL: server.baseURL, path: "item")
        }
        network.freshnessPolicy = .sharedCache
        let memory = MemoryDataSource<Item>(configuration: .init(clock: clock))
        let repository = CacheRepository(main: network, cache: memory.validated(by: FreshnessValidator(clock: clock)))
        #expect(try await repository.get(KeyQuery("item"), operation: .cacheSync) == Item(name: "v1"))

        clock.advance(by: .seconds(61))
        #expect(try await repository.get(KeyQuery("item"), operation: .cacheSync) == Item(name: "v1"))

        #expect(memory.value(forKey: "item") == Item(name: "v1"))
        #expect(try await repository.get(KeyQuery("item"), operation: .cacheSync) == Item(name: "v1"))
        #expect(server.requestCount(path: "/item") == 2)
    }

    /// A response that varies on a request field the request rule sets (`Vary: Accept-Language`) is revalidated
    /// before every reuse: the read after the language changed gets the new language's answer. Before, the stored
    /// answer was fresh for its whole `max-age`, whatever the next request sent (RFC 9111, section 4.1).
    @Test(.timeLimit(.minutes(1)), arguments: ["Accept-Language", "Authorization"])
    func anAnswerThatVariesOnARequestFieldIsRevalidatedBeforeReuse(field: String) async throws {
        // Given a server whose answer varies on a field, and a request rule that sends the app's current value
        let server = try await LoopbackServer.start([
            (
                "GET /me",
                { request in
                    let value = request.headers[field.lowercased()] ?? "none"
                    return ServerReply(
                        status: 200,
                        headers: ["Cache-Control": "private, max-age=300", "Vary": field, "ETag": "\"\(value)\""],
                        body: Data(#"{"name":"\#(value)"}"#.utf8)
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let current = Locked("one")
        let clock = ManualClock()
        let client = HTTPClient(transport: URLSessionTransport(), configuration: .init(clock: clock))
        let network = NetworkGetDataSource<Item>(client: client) { _ in
            HTTPRequest(baseURL: server.baseURL, path: "me", headers: [field: current.withLock { $0 }])
        }
        let memory = MemoryDataSource<Item>(configuration: .init(clock: clock))
        let repository = CacheRepository(main: network, cache: memory.validated(by: FreshnessValidator(clock: clock)))
        #expect(try await repository.get(KeyQuery("me"), operation: .cacheSync) == Item(name: "one"))

        // When the field's value changes, well within the answer's max-age
        current.withLock { $0 = "two" }
        clock.advance(by: .seconds(10))

        // Then the next read asks the server again and gets the answer for the new value
        #expect(try await repository.get(KeyQuery("me"), operation: .cacheSync) == Item(name: "two"))
        #expect(server.requestCount(path: "/me") == 2)
    }

    /// A list stored without a lifetime (fresh for as long as the cache keeps it), read again from main and answered
    /// `no-store`: the older list is gone from the cache, as for one value — it stayed, and the next read served it,
    /// older than the list just shown.
    @Test(.timeLimit(.minutes(1)))
    func aNoStoreListAnswerRemovesTheOlderList() async throws {
        let server = try await LoopbackServer.start([
            (
                "GET /items",
                numberedRoute { answer in
                    ServerReply(
                        status: 200,
                        headers: answer == 1 ? [:] : ["Cache-Control": "no-store"],
                        body: Data(#"[{"name":"a\#(answer)"},{"name":"b\#(answer)"}]"#.utf8)
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let (_, memory, repository) = Self.freshnessCache(of: server, path: "items")
        let query = IdsQuery(["a", "b"])
        #expect(try await repository.getAll(query, operation: .cacheSync).map(\.name) == ["a1", "b1"])
        #expect(try await repository.getAll(query, operation: .mainSync).map(\.name) == ["a2", "b2"])

        #expect(try await repository.getAll(query, operation: .cacheSync).map(\.name) == ["a3", "b3"])
        #expect(memory.value(forKey: "a") == nil)
    }

    /// A request that says `Cache-Control: no-store` (RFC 9111, section 5.2.1.5): its response, however cacheable,
    /// is returned and not stored.
    @Test(.timeLimit(.minutes(1)))
    func aResponseToANoStoreRequestIsNotStored() async throws {
        let server = try await Self.serving("/item", cacheControl: "max-age=600", name: "v1")
        defer { Task { await server.stop() } }
        let network = NetworkGetDataSource<Item>(client: makeClient()) { _ in
            var request = HTTPRequest(baseURL: server.baseURL, path: "item")
            request.headers["Cache-Control"] = "no-store"
            return request
        }
        let memory = MemoryDataSource<Item>()
        let repository = CacheRepository(main: network, cache: memory)

        #expect(try await repository.get(KeyQuery("item"), operation: .cacheSync) == Item(name: "v1"))
        #expect(try await repository.get(KeyQuery("item"), operation: .cacheSync) == Item(name: "v1"))

        #expect(memory.value(forKey: "item") == nil)
        #expect(server.requestCount(path: "/item") == 2)
    }

    /// A response that forbids serving it stale (`must-revalidate`, `no-cache`: RFC 9111, section 4.2.4) is never
    /// served stale when the server then fails, even by an operation whose fallback accepts any error; the rule
    /// outlives a 304 that sends no `Cache-Control` of its own (section 4.3.4). Without it, the stale value is
    /// served.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [("max-age=60, must-revalidate", true), ("no-cache", true), ("max-age=60", false)]
    )
    func aResponseThatForbidsServingStaleIsNeverServedStale(control: String, forbids: Bool) async throws {
        // Given a server that answers in full, then 304 without `Cache-Control`, then 503
        let phase = Locked(1)
        let server = try await LoopbackServer.start([
            (
                "GET /item",
                { _ in
                    switch phase.withLock({ $0 }) {
                    case 1:
                        ServerReply(
                            status: 200,
                            headers: ["Cache-Control": control, "ETag": "\"v1\""],
                            body: Data(#"{"name":"v1"}"#.utf8)
                        )
                    case 2: ServerReply(status: 304, headers: ["ETag": "\"v1\""])
                    default: ServerReply(status: 503, body: Data("down".utf8))
                    }
                }
            )
        ])
        defer { Task { await server.stop() } }
        let (clock, memory, repository) = Self.freshnessCache(of: server)
        let serveStale = CacheSyncOperation(fallback: { _ in true })
        let query = KeyQuery("item")

        // When it is read, then revalidated (304) once stale
        #expect(try await repository.get(query, operation: serveStale) == Item(name: "v1"))
        #expect(memory.entry(forKey: "item")?.metadata.forbidsServingStale == forbids)
        clock.advance(by: .seconds(61))
        phase.withLock { $0 = 2 }
        #expect(try await repository.get(query, operation: serveStale) == Item(name: "v1"))
        #expect(server.requestCount(path: "/item") == 2)
        #expect(memory.entry(forKey: "item")?.metadata.forbidsServingStale == forbids)

        // And read again once stale, the server failing
        clock.advance(by: .seconds(61))
        phase.withLock { $0 = 3 }
        let read: Item?
        let error: StrataError?
        do {
            read = try await repository.get(query, operation: serveStale)
            error = nil
        } catch let thrown as StrataError {
            read = nil
            error = thrown
        }

        // Then the stale value is served only when the response allowed it; otherwise the 503 shows
        #expect(read == (forbids ? nil : Item(name: "v1")))
        #expect(error?.httpFailure?.status == (forbids ? 503 : nil), "\(String(describing: error))")
        #expect(server.requestCount(path: "/item") == 3)
    }

    /// Before, the source judged a response by the request it built, without the client's own headers: an
    /// `Authorization` every request carried was invisible, and a shared cache stored one user's answer for all.
    @Test(.timeLimit(.minutes(1)))
    func aSharedCacheNeverStoresAnAnswerToTheClientsCredentials() async throws {
        let server = try await Self.serving("/me", cacheControl: "max-age=60", name: "ann")
        defer { Task { await server.stop() } }
        let client = HTTPClient(
            transport: URLSessionTransport(),
            configuration: HTTPClient.Configuration(headers: ["Authorization": "Bearer ann"])
        )
        var network = NetworkGetDataSource<Item>(client: client) { _ in HTTPRequest(baseURL: server.baseURL, path: "me")
        }
        network.freshnessPolicy = .sharedCache
        let cache = MemoryDataSource<Item>()
        let repository = CacheRepository(main: network, cache: cache)

        #expect(try await repository.get(KeyQuery("me"), operation: .cacheSync) == Item(name: "ann"))

        #expect(cache.entry(forKey: "me") == nil)
        #expect(try await network.getEntry(KeyQuery("me")).metadata.isStorable == false)
    }

    /// A server that answers `GET path` with the item `name` and `cacheControl`.
    private static func serving(_ path: String, cacheControl: String, name: String) async throws -> LoopbackServer {
        let body = Data(#"{"name":"\#(name)"}"#.utf8)
        return try await LoopbackServer.start([
            ("GET \(path)", { _ in ServerReply(status: 200, headers: ["Cache-Control": cacheControl], body: body) })
        ])
    }
}
