import Foundation
import LoopbackServer
import Strata
import StrataFile
import StrataNetwork
import StrataTesting
import Testing

/// `CacheRepository(main: http, cache: file)` speaks HTTP caching end to end: the first read downloads (200),
/// a read once the entry is no longer fresh revalidates it with its ETag, and the 304 renews the cached entry's
/// metadata without rewriting its file.
///
/// Needs, besides this branch's `NetworkGetDataSource.getIfModified(_:since:)`: the executor calling it for a
/// stale entry with validators and then `renewMetadata(_:in:)` (the operations branch), and `FileDataSource`
/// keeping entry metadata and renewing it in place (the stores branch).
struct HTTPRevalidationRepositoryTests {
    /// The identity of an entry file: its inode and its length. (Not its modification date: renewing rewrites the
    /// trailer in place, and a write in place moves the date, as it should.)
    private struct FileStamp: Equatable {
        var inode: Int
        var size: Int
    }

    /// The regular files of a folder (recursively) whose contents begin with `bytes`, by path.
    private static func files(in folder: URL, startingWith bytes: Data) throws -> [String: FileStamp] {
        var result: [String: FileStamp] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard attributes[.type] as? FileAttributeType == .typeRegular,
                try Data(contentsOf: url).starts(with: bytes)
            else { continue }
            result[url.path] = FileStamp(
                inode: (attributes[.systemFileNumber] as? NSNumber)?.intValue ?? -1,
                size: (attributes[.size] as? NSNumber)?.intValue ?? -1
            )
        }
        return result
    }

    @Test(.timeLimit(.minutes(1)))
    func aStaleFileEntryIsRevalidatedAndRenewedWithoutRewritingItsBytes() async throws {
        // Given a server that answers 304 to the current ETag (and counts), a file cache whose entries are valid
        // while they are fresh by HTTP's rules, and one clock for both
        let body = Data(repeating: UInt8(ascii: "z"), count: 2_048)
        let server = try await LoopbackServer.start([
            (
                "GET /blob",
                { request in
                    let headers = ["ETag": "\"v1\"", "Cache-Control": "max-age=60"]
                    if request.headers["if-none-match"] == "\"v1\"" {
                        return ServerReply(status: 304, headers: headers)
                    }
                    return ServerReply(status: 200, headers: headers, body: body)
                }
            )
        ])
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let client = HTTPClient(configuration: .init(clock: clock))
        let http = NetworkGetDataSource<Data>(
            client: client,
            request: { _ in HTTPRequest(baseURL: server.baseURL, path: "blob") },
            decode: IdentityMapper<Data>(),
            decodeAll: ClosureMapper<Data, [Data]> { [$0] }
        )
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "blobs", clock: clock)
        )
        let cache = store.validated(by: .fresh(clock: clock))
        let repository = CacheRepository(main: http, cache: cache)

        // When it reads once, then three more times, each after the entry's 60 s of freshness have passed
        let first = try await repository.get(KeyQuery("blob"), operation: .cacheSync)
        let written = try Self.files(in: store.folderURL, startingWith: body)
        var later: [Data] = []
        for _ in 0..<3 {
            clock.advance(by: .seconds(61))
            later.append(try await repository.get(KeyQuery("blob"), operation: .cacheSync))
        }

        // Then one 200 and three 304s: every read served the same bytes, and the cache's files were never
        // rewritten (the same files, still starting with the same bytes, of the same length)
        #expect(first == body)
        #expect(later == [body, body, body])
        #expect(server.requestCount(path: "/blob") == 4)
        let conditional = server.requests.filter { $0.headers["if-none-match"] == "\"v1\"" }
        #expect(conditional.count == 3, "every read once stale revalidated: \(server.requests)")
        #expect(written.count == 1)
        #expect(try Self.files(in: store.folderURL, startingWith: body) == written)
        // And the renewed entry is fresh again until the last 304's max-age runs out, stamped by the store's
        // clock, with no hard expiry (the store has no time to live)
        let entry = try await store.getEntry(KeyQuery("blob"))
        #expect(entry.metadata.eTag == "\"v1\"")
        #expect(entry.metadata.freshUntil == clock.now().addingTimeInterval(60))
        #expect(entry.metadata.storedAt == clock.now())
        #expect(entry.metadata.expiresAt == nil)
    }

    @Test(.timeLimit(.minutes(1)))
    func theHTTPSourceAnswersNotModifiedWithRenewedMetadata() async throws {
        // The part of the flow this branch owns: getEntry's metadata and getIfModified's 304 as a value.
        let server = try await LoopbackServer.start([
            (
                "GET /blob",
                { request in
                    let headers = ["ETag": "\"v1\"", "Cache-Control": "max-age=60", "Age": "10"]
                    if request.headers["if-none-match"] == "\"v1\"" {
                        return ServerReply(status: 304, headers: headers)
                    }
                    return ServerReply(status: 200, headers: headers, body: Data("body".utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let http = NetworkGetDataSource<Data>(
            client: HTTPClient(configuration: .init(clock: clock)),
            request: { _ in HTTPRequest(baseURL: server.baseURL, path: "blob") },
            decode: IdentityMapper<Data>(),
            decodeAll: ClosureMapper<Data, [Data]> { [$0] }
        )

        let entry = try await http.getEntry(KeyQuery("blob"))
        clock.advance(by: .seconds(100))
        let answer = try await http.getIfModified(KeyQuery("blob"), since: entry.metadata)

        // The source reports freshness only: no stored date (the cache stamps its own) and no hard expiry
        #expect(entry.value == Data("body".utf8))
        #expect(entry.metadata.storedAt == nil)
        #expect(entry.metadata.expiresAt == nil)
        #expect(entry.metadata.freshUntil == clock.now().addingTimeInterval(-50))
        #expect(entry.metadata.eTag == "\"v1\"")
        guard case .notModified(let renewed) = answer else {
            Issue.record("Expected not modified, got \(answer)")
            return
        }
        #expect(renewed.storedAt == nil)
        #expect(renewed.expiresAt == nil)
        #expect(renewed.freshUntil == clock.now().addingTimeInterval(50))
        #expect(renewed.eTag == "\"v1\"")
        #expect(server.requests.last?.headers["if-none-match"] == "\"v1\"")
    }

    @Test(.timeLimit(.minutes(1)))
    func theHTTPSourceReportsFreshnessForEveryKindOfResponse() async throws {
        // no-cache is stale from the start, must-revalidate keeps its lifetime (or none: stale at once), and a
        // response without a lifetime says nothing
        let routes: [(String, [String: String], Duration?)] = [
            ("max-age", ["Cache-Control": "max-age=60"], .seconds(60)),
            ("no-cache", ["Cache-Control": "max-age=60, no-cache"], .zero),
            ("must-revalidate", ["Cache-Control": "max-age=60, must-revalidate"], .seconds(60)),
            ("must-revalidate-only", ["Cache-Control": "must-revalidate"], .zero),
            ("none", [:], nil),
        ]
        let server = try await LoopbackServer.start(
            routes.map { path, headers, _ -> (String, @Sendable (ServerRequest) async throws -> ServerReply) in
                ("GET /\(path)", { _ in ServerReply(status: 200, headers: headers, body: Data("b".utf8)) })
            }
        )
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let http = NetworkGetDataSource<Data>(
            client: HTTPClient(configuration: .init(clock: clock)),
            request: { query in
                HTTPRequest(baseURL: server.baseURL, path: (query as? KeyQuery)?.key ?? "")
            },
            decode: IdentityMapper<Data>(),
            decodeAll: ClosureMapper<Data, [Data]> { [$0] }
        )

        for (path, _, lifetime) in routes {
            let entry = try await http.getEntry(KeyQuery(path))
            #expect(
                entry.metadata.freshUntil == lifetime.map { clock.now().addingTimeInterval($0.timeInterval) },
                "\(path)"
            )
            #expect(entry.metadata.storedAt == nil, "\(path)")
            #expect(entry.metadata.expiresAt == nil, "\(path)")
        }
    }

    /// The HTTP source, a file cache valid while fresh, and one clock: what the tests below read through.
    private struct Setup {
        let clock = ManualClock()
        let folder: TemporaryFolder
        let store: FileDataSource
        let repository:
            CacheRepository<NetworkGetDataSource<Data>, ValidatedDataSource<FileDataSource, FreshnessValidator<Data>>>

        init(server: LoopbackServer) throws {
            folder = try TemporaryFolder()
            let http = NetworkGetDataSource<Data>(
                client: HTTPClient(configuration: .init(clock: clock)),
                request: { _ in HTTPRequest(baseURL: server.baseURL, path: "blob") },
                decode: IdentityMapper<Data>(),
                decodeAll: ClosureMapper<Data, [Data]> { [$0] }
            )
            store = try FileDataSource(
                configuration: .init(location: .url(folder.url), identifier: "blobs", clock: clock)
            )
            repository = CacheRepository(main: http, cache: store.validated(by: .fresh(clock: clock)))
        }

        func read() async throws -> Data { try await repository.get(KeyQuery("blob"), operation: .cacheSync) }
    }

    /// A `no-store` response is returned and never stored (RFC 9111, section 5.2.2.5): nothing reaches the file
    /// cache, and the next read asks the server again (it was stored with no freshness, so valid until the
    /// store's own time to live: a token served from disk without asking).
    @Test(.timeLimit(.minutes(1)))
    func aNoStoreResponseIsReturnedAndNeverStored() async throws {
        let server = try await LoopbackServer.start([
            (
                "GET /blob",
                { _ in ServerReply(status: 200, headers: ["Cache-Control": "no-store"], body: Data("secret".utf8)) }
            )
        ])
        defer { Task { await server.stop() } }
        let setup = try Setup(server: server)
        defer { setup.folder.remove() }

        #expect(try await setup.read() == Data("secret".utf8))
        #expect(try await setup.read() == Data("secret".utf8))

        #expect(server.requestCount(path: "/blob") == 2)
        #expect(setup.store.count == 0)
        #expect(try Self.files(in: setup.store.folderURL, startingWith: Data("secret".utf8)).isEmpty)
    }

    /// A `304` that names no freshness (only its `ETag`, as many servers send it) keeps the stored entry's rules
    /// (RFC 9111, section 4.3.4): a `max-age=60` entry is fresh for 60 s again, then revalidated again; a
    /// `no-cache` one is revalidated at every read (the renewal had no lifetime, which a freshness validator takes
    /// for fresh forever: never asked again). So does a 304 that sends only `Expires`: without `Cache-Control` of
    /// its own the stored one stands, whose `max-age` outranks `Expires` and whose `no-cache` still holds (before,
    /// the 304's `Expires` alone made the entry fresh until 2100).
    @Test(
        .timeLimit(.minutes(1)),
        arguments: ["max-age=60", "no-cache"],
        [nil, "Fri, 01 Jan 2100 00:00:00 GMT"]
    )
    func aNotModifiedWithoutCacheControlKeepsTheStoredRules(cacheControl: String, expires: String?) async throws {
        let server = try await LoopbackServer.start([
            (
                "GET /blob",
                { request in
                    if request.headers["if-none-match"] == "\"v1\"" {
                        var headers = ["ETag": "\"v1\""]
                        headers["Expires"] = expires
                        return ServerReply(status: 304, headers: headers)
                    }
                    return ServerReply(
                        status: 200,
                        headers: ["ETag": "\"v1\"", "Cache-Control": cacheControl],
                        body: Data("body".utf8)
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let setup = try Setup(server: server)
        defer { setup.folder.remove() }

        // A read, then three more, each 61 s after the one before, and one more read 30 s after the last
        _ = try await setup.read()
        for _ in 0..<3 {
            setup.clock.advance(by: .seconds(61))
            #expect(try await setup.read() == Data("body".utf8))
        }
        setup.clock.advance(by: .seconds(30))
        #expect(try await setup.read() == Data("body".utf8))

        let conditional = server.requests.filter { $0.headers["if-none-match"] == "\"v1\"" }.count
        if cacheControl == "no-cache" {
            #expect(conditional == 4, "every read after the first revalidated: \(server.requests)")
        } else {
            #expect(conditional == 3, "every read once 60 s had passed revalidated: \(server.requests)")
            let entry = try await setup.store.getEntry(KeyQuery("blob"))
            #expect(entry.metadata.freshUntil == setup.clock.now().addingTimeInterval(30))
        }
    }
}
