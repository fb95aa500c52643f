import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataNetwork
import StrataTesting
import Testing

/// Collects the errors a cache manager reports.
final class ReportedErrors: Sendable {
    private let errors = Locked<[StrataError]>([])

    func append(_ error: StrataError) { errors.withLock { $0.append(error) } }

    var all: [StrataError] { errors.withLock { $0 } }
}

struct CacheManagerFetcherTests {
    /// A fetcher over a cache in `folder` on `clock`, and the URL of `/screen` on `server`.
    private func screenFetcher(_ server: LoopbackServer, _ folder: TemporaryFolder, clock: ManualClock) throws
        -> (CachedFetcher, URL)
    {
        let cache = try makeCache(folder, clock: clock)
        return (cache.fetcher(client: try makeClient(folder)), server.baseURL.appendingPathComponent("screen"))
    }

    /// v1 of `/screen`, revalidated at every use: a `304` to a conditional request, else the `200`.
    private static func answerV1(to request: ServerRequest) -> ServerReply {
        guard request.headers["if-none-match"] == nil else {
            return ServerReply(status: 304, headers: ["ETag": "\"v1\""])
        }
        return ServerReply(
            status: 200,
            headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"],
            body: Data("v1".utf8)
        )
    }

    /// A server of `/screen` that answers by `answer` and holds each revalidation (a request with `If-None-Match`):
    /// `arrived` opens when one comes, and it is answered once `release` opens.
    private static func holdingRevalidations(
        _ arrived: Gate,
        _ release: Gate,
        answer: @escaping @Sendable (ServerRequest) -> ServerReply
    ) async throws -> LoopbackServer {
        try await LoopbackServer.start([
            (
                "GET /screen",
                { request in
                    if request.headers["if-none-match"] != nil {
                        arrived.open()
                        await release.wait()
                    }
                    return answer(request)
                }
            )
        ])
    }

    private func makeCache(_ folder: TemporaryFolder, clock: ManualClock, errors: ReportedErrors? = nil) throws
        -> CacheManager
    {
        var diagnostics: (@Sendable (StrataError) -> Void)?
        if let errors { diagnostics = { errors.append($0) } }
        return try CacheManager(
            configuration: .init(
                folder: folder.url.appendingPathComponent("beagle"),
                clock: clock,
                diagnostics: diagnostics
            )
        )
    }

    /// A cache manager on a manual clock, its fetcher, and `resource` served at `/screen` on a loopback server.
    private struct Screen {
        let folder: TemporaryFolder
        let server: LoopbackServer
        let clock: ManualClock
        let cache: CacheManager
        let fetcher: CachedFetcher
        var url: URL { server.baseURL.appendingPathComponent("screen") }
    }

    /// Runs `body` with a ``Screen`` serving `resource`, its fetcher sending hashes in `hashHeader`; the server and the
    /// folder go afterwards.
    private func withScreen(
        _ resource: VersionedResource,
        hashHeader: String = "If-None-Match",
        _ body: (Screen) async throws -> Void
    ) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(resource, path: "/screen")
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let cache = try makeCache(folder, clock: clock)
        let fetcher = cache.fetcher(client: try makeClient(folder), hashHeader: hashHeader)
        try await body(Screen(folder: folder, server: server, clock: clock, cache: cache, fetcher: fetcher))
    }

    @Test func aValidReferenceAnswersAndAStaleOneIsRevalidatedWithA304() async throws {
        // Given a cached screen
        let resource = VersionedResource(body: Data("{\"screen\":1}".utf8), eTag: "\"v1\"")
        try await withScreen(resource) { screen in
            let first = try await screen.fetcher.fetch(url: screen.url)

            // When it is fetched while valid, then after 300 s
            let fresh = try await screen.fetcher.fetch(url: screen.url)
            screen.clock.advance(by: .seconds(300))
            let revalidated = try await screen.fetcher.fetch(url: screen.url)
            let again = try await screen.fetcher.fetch(url: screen.url)

            // Then
            #expect(first.origin == .network)
            #expect(first.reference.hash == "\"v1\"")
            #expect(fresh.origin == .cache)
            #expect(revalidated.origin == .revalidated)
            #expect(revalidated.reference.timeOfCreation == screen.clock.now())
            #expect(revalidated.reference.data == first.reference.data)
            #expect(again.origin == .cache)
            #expect(screen.server.requestCount(path: "/screen") == 2)
            #expect(screen.server.requests.first?.headers["if-none-match"] == nil)
            #expect(screen.server.requests.last?.headers["if-none-match"] == "\"v1\"")
            #expect(
                screen.cache.getReference(identifiedBy: screen.url.absoluteString)?.timeOfCreation == screen.clock.now()
            )
        }
    }

    /// Only a GET is answered from the cache (RFC 9111, section 2): a POST to a URL whose GET is cached is sent, and
    /// its response neither answers nor replaces the GET's; a HEAD is sent and changes nothing; a successful POST or
    /// DELETE marks the GET's reference stale (section 4.4), so the next GET revalidates it.
    @Test func onlyAGetIsAnsweredFromTheCacheAndAnUnsafeMethodMarksItStale() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let resource = VersionedResource(body: Data("get".utf8), eTag: "\"v1\"")
        let server = try await LoopbackServer.start([
            ("GET /screen", { request in resource.reply(request) }),
            ("HEAD /screen", { _ in ServerReply(status: 200, headers: ["ETag": "\"v1\""]) }),
            ("POST /screen", { _ in ServerReply(status: 201, body: Data("posted".utf8)) }),
            ("DELETE /screen", { _ in ServerReply(status: 204) }),
        ])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let (fetcher, url) = try screenFetcher(server, folder, clock: clock)
        _ = try await fetcher.fetch(url: url)

        // A HEAD is sent, and the GET still answers from the cache
        let head = try await fetcher.fetch(HTTPRequest(.head, url: url), identifier: url.absoluteString)
        #expect(head.origin == .network)
        #expect(try await fetcher.fetch(url: url).origin == .cache)

        // A POST is sent and answered by the server, and the GET's reference is then revalidated (a 304)
        let posted = try await fetcher.fetch(HTTPRequest(.post, url: url), identifier: url.absoluteString)
        #expect(posted.origin == .network)
        #expect(posted.reference.data == Data("posted".utf8))
        let afterPost = try await fetcher.fetch(url: url)
        #expect(afterPost.origin == .revalidated)
        #expect(afterPost.reference.data == Data("get".utf8))
        // and, renewed by that 304, answers from the cache again (marked stale by a zero lifetime, it stayed stale)
        #expect(try await fetcher.fetch(url: url).origin == .cache)

        // So does a DELETE
        let deleted = try await fetcher.fetch(HTTPRequest(.delete, url: url), identifier: url.absoluteString)
        #expect(deleted.origin == .network)
        #expect(try await fetcher.fetch(url: url).origin == .revalidated)
        #expect(try await fetcher.fetch(url: url).origin == .cache)
        #expect(server.requestCount(path: "/screen") == 6)
        #expect(server.requests.map(\.method) == ["GET", "HEAD", "POST", "GET", "DELETE", "GET"])
    }

    /// A request's `Cache-Control: no-cache` or `max-age` (RFC 9111, section 5.2.1): a reference the cache holds as
    /// valid is revalidated (a 304) rather than used, when the request says so.
    @Test(arguments: [("no-cache", true), ("max-age=10", true), ("max-age=60", false), ("no-store", false)])
    func aRequestsOwnCacheControlIsHeard(control: String, revalidates: Bool) async throws {
        let resource = VersionedResource(body: Data("a".utf8), eTag: "\"v1\"")
        try await withScreen(resource) { screen in
            _ = try await screen.fetcher.fetch(url: screen.url)
            screen.clock.advance(by: .seconds(30))

            var request = HTTPRequest(.get, url: screen.url)
            request.headers["Cache-Control"] = control
            let answer = try await screen.fetcher.fetch(request, identifier: screen.url.absoluteString)

            #expect(answer.origin == (revalidates ? .revalidated : .cache), "\(control)")
            #expect(answer.reference.data == Data("a".utf8))
            #expect(screen.server.requests.count == (revalidates ? 2 : 1))
            if revalidates { #expect(screen.server.requests.last?.headers["if-none-match"] == "\"v1\"") }
        }
    }

    /// A request's `max-age` compares the reference's whole age (RFC 9111, section 5.2.1.1): the `Age` its response
    /// arrived with counts, so a response 3,000 s old when received is too old for `max-age=60` at once.
    @Test func aRequestsMaxAgeCountsTheAgeTheResponseArrivedWith() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([
            (
                "GET /screen",
                { request in
                    if request.headers["if-none-match"] == "\"v1\"" {
                        return ServerReply(status: 304, headers: ["ETag": "\"v1\""])
                    }
                    let headers = ["ETag": "\"v1\"", "Cache-Control": "max-age=86400", "Age": "3000"]
                    return ServerReply(status: 200, headers: headers, body: Data("a".utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let cache = try makeCache(folder, clock: ManualClock())
        let fetcher = cache.fetcher(client: try makeClient(folder))
        let url = server.baseURL.appendingPathComponent("screen")
        let first = try await fetcher.fetch(url: url)

        var request = HTTPRequest(.get, url: url)
        request.headers["Cache-Control"] = "max-age=60"
        let answer = try await fetcher.fetch(request, identifier: url.absoluteString)

        #expect(first.reference.initialAge == 3000)
        #expect(answer.origin == .revalidated)
        #expect(server.requests.last?.headers["if-none-match"] == "\"v1\"")
    }

    /// A response with `Vary: Accept-Language` answers only a request that sends the same language (RFC 9111,
    /// section 4.1): one in another language asks the server, and gets its own answer. Before, the reference stored
    /// for English answered the French request from the cache.
    @Test func aResponseThatVariesAnswersOnlyARequestThatSendsTheSameValues() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let bodies = ["en": "hello", "fr": "bonjour"]
        let server = try await LoopbackServer.start([
            (
                "GET /greeting",
                { request in
                    let language = request.headers["accept-language"] ?? "en"
                    let eTag = "\"\(language)\""
                    let headers = ["ETag": eTag, "Cache-Control": "max-age=600", "Vary": "Accept-Language"]
                    if request.headers["if-none-match"] == eTag { return ServerReply(status: 304, headers: headers) }
                    return ServerReply(status: 200, headers: headers, body: Data((bodies[language] ?? "").utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let fetcher = try makeCache(folder, clock: ManualClock()).fetcher(client: try makeClient(folder))
        let url = server.baseURL.appendingPathComponent("greeting")
        func fetch(in language: String) async throws -> CachedFetchResult {
            var request = HTTPRequest(.get, url: url)
            request.headers["Accept-Language"] = language
            return try await fetcher.fetch(request, identifier: url.absoluteString)
        }

        let english = try await fetch(in: "en")
        let french = try await fetch(in: "fr")
        let frenchAgain = try await fetch(in: "fr")

        #expect(english.reference.data == Data("hello".utf8))
        #expect(french.reference.data == Data("bonjour".utf8))
        #expect(french.origin == .network)
        #expect(frenchAgain.origin == .cache)
        #expect(frenchAgain.reference.data == Data("bonjour".utf8))
        #expect(server.requestCount(path: "/greeting") == 2)
    }

    /// Before, the values of the fields a response varied on were written into the cache's folder as they were: an
    /// API that answers `Vary: Authorization, Cookie` left the user's token and session cookie on disk, in every
    /// reference, for as long as the cache kept it. A credential field is kept as a digest, and still matched.
    @Test func credentialsAResponseVariesOnNeverReachTheCacheFolder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([
            (
                "GET /me",
                { request in
                    let headers = ["Cache-Control": "max-age=600", "Vary": "Authorization, Cookie"]
                    let body = request.headers["authorization"] == "Bearer s3cret-ann" ? "ann" : "someone else"
                    return ServerReply(status: 200, headers: headers, body: Data(body.utf8))
                }
            )
        ])
        defer { Task { await server.stop() } }
        let fetcher = try makeCache(folder, clock: ManualClock()).fetcher(client: try makeClient(folder))
        let url = server.baseURL.appendingPathComponent("me")
        func fetch(as token: String) async throws -> CachedFetchResult {
            var request = HTTPRequest(.get, url: url)
            request.headers["Authorization"] = "Bearer \(token)"
            request.headers["Cookie"] = "session=c00kie-\(token)"
            return try await fetcher.fetch(request, identifier: url.absoluteString)
        }

        let first = try await fetch(as: "s3cret-ann")
        let again = try await fetch(as: "s3cret-ann")
        let other = try await fetch(as: "s3cret-bob")

        #expect(first.reference.data == Data("ann".utf8))
        #expect(again.origin == .cache)
        #expect(other.origin == .network)
        #expect(other.reference.data == Data("someone else".utf8))
        let files = try #require(FileManager.default.enumerator(at: folder.url, includingPropertiesForKeys: nil))
        for case let file as URL in files where !file.path.contains("/downloads") {
            guard let bytes = try? Data(contentsOf: file) else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("s3cret") && !text.contains("c00kie"), "\(file.lastPathComponent)")
        }
    }

    @Test func theHashGoesInTheConfiguredHeader() async throws {
        let resource = VersionedResource(body: Data("a".utf8), eTag: "\"v1\"", validatorHeader: "beagle-hash")
        try await withScreen(resource, hashHeader: "beagle-hash") { screen in
            _ = try await screen.fetcher.fetch(url: screen.url)
            screen.clock.advance(by: .seconds(301))
            let revalidated = try await screen.fetcher.fetch(url: screen.url)

            #expect(revalidated.origin == .revalidated)
            #expect(screen.server.requests.last?.headers["beagle-hash"] == "\"v1\"")
            #expect(screen.server.requests.last?.headers["if-none-match"] == nil)
        }
    }

    @Test func a2xxReplacesAStaleReference() async throws {
        let resource = VersionedResource(body: Data("old".utf8), eTag: "\"v1\"")
        try await withScreen(resource) { screen in
            _ = try await screen.fetcher.fetch(url: screen.url)

            resource.update(body: Data("new".utf8), eTag: "\"v2\"")
            screen.clock.advance(by: .seconds(400))
            let replaced = try await screen.fetcher.fetch(url: screen.url)

            #expect(replaced.origin == .network)
            #expect(replaced.reference.data == Data("new".utf8))
            #expect(replaced.reference.hash == "\"v2\"")
            #expect(screen.cache.getReference(identifiedBy: screen.url.absoluteString) == replaced.reference)
            #expect(screen.server.requests.last?.headers["if-none-match"] == "\"v1\"")
        }
    }

    /// The response's `max-age` sets the reference's validity, which a 304 renews; a 304 that sends `Expires` (here
    /// in 2100) but no `Cache-Control` keeps the stored `max-age`, which outranks `Expires` (RFC 9111, section
    /// 4.3.4). Before, that 304 made the reference valid until 2100.
    @Test(arguments: [nil, "Fri, 01 Jan 2100 00:00:00 GMT"])
    func maxAgeFromTheResponseSetsTheReferencesValidity(laterExpires: String?) async throws {
        let resource = VersionedResource(
            body: Data("a".utf8),
            eTag: "\"v1\"",
            extraHeaders: ["Cache-Control": "public, max-age=60"]
        )
        try await withScreen(resource) { screen in
            let first = try await screen.fetcher.fetch(url: screen.url)
            if let laterExpires { resource.setExtraHeaders(["Expires": laterExpires]) }
            screen.clock.advance(by: .seconds(59))
            let cached = try await screen.fetcher.fetch(url: screen.url)
            screen.clock.advance(by: .seconds(1))
            let revalidated = try await screen.fetcher.fetch(url: screen.url)

            #expect(first.reference.maxAge == 60)
            #expect(cached.origin == .cache)
            #expect(revalidated.origin == .revalidated)
            #expect(revalidated.reference.maxAge == 60)
            #expect(screen.server.requestCount(path: "/screen") == 2)
        }
    }

    @Test func withoutAnETagTheHashIsAHashOfTheContent() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([
            ("GET /screen", { _ in ServerReply(status: 200, body: Data("body".utf8)) })
        ])
        defer { Task { await server.stop() } }
        let cache = try makeCache(folder, clock: ManualClock())
        let fetcher = cache.fetcher(client: try makeClient(folder))

        let result = try await fetcher.fetch(url: server.baseURL.appendingPathComponent("screen"))

        #expect(result.reference.hash.count == 32)
        #expect(result.reference.hash.allSatisfy { $0.isHexDigit })
        #expect(result.reference.maxAge == nil)
    }

    /// A stored hash goes out as `If-None-Match` only as one entity tag: `*` (which matches any version) or a list
    /// of tags is not sent, and the content hash of a response without `ETag` is sent quoted. A server at a new
    /// version that answers 304 to any `If-None-Match` then sends the new version.
    @Test(arguments: ["*", "\"a\", \"b\"", nil])
    func aStoredHashIsSentAsIfNoneMatchOnlyAsOneEntityTag(eTag: String?) async throws {
        // Given a reference stored from a response whose ETag is `eTag`, and a server that has moved on
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let version = Locked("v1")
        let server = try await LoopbackServer.start([
            (
                "GET /screen",
                { request in
                    if request.headers["if-none-match"] != nil { return ServerReply(status: 304) }
                    return ServerReply(
                        status: 200,
                        headers: eTag.map { ["ETag": $0] } ?? [:],
                        body: Data(version.withLock { $0 }.utf8)
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let cache = try makeCache(folder, clock: clock)
        let fetcher = cache.fetcher(client: try makeClient(folder))
        let url = server.baseURL.appendingPathComponent("screen")
        let first = try await fetcher.fetch(url: url)
        version.withLock { $0 = "v2" }

        // When the stale reference is fetched
        clock.advance(by: .seconds(300))
        let second = try await fetcher.fetch(url: url)

        // Then no wildcard or list was sent, the content hash went quoted (a 304 would then be checked against it),
        // and the new version is not hidden behind a 304
        let sent = server.requests.last?.headers["if-none-match"]
        if eTag == nil {
            #expect(sent == "\"\(first.reference.hash)\"")
        } else {
            #expect(sent == nil)
            #expect(second.reference.data == Data("v2".utf8))
        }
    }

    /// Before, a 304 to a revalidation that could not send the stored hash (`*`) was taken as one about the stored
    /// version: it renewed and served it, pinned for as long as the server kept answering 304.
    @Test func a304ToARevalidationThatSentNoHashIsAnError() async throws {
        // Given a reference stored from a response whose ETag is `*`, and a server that then answers 304 to anything
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let answered = Locked(false)
        let server = try await LoopbackServer.start([
            (
                "GET /screen",
                { _ in
                    guard answered.withLock({ $0 }) else {
                        answered.withLock { $0 = true }
                        return ServerReply(status: 200, headers: ["ETag": "*"], body: Data("v1".utf8))
                    }
                    return ServerReply(status: 304)
                }
            )
        ])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let (fetcher, url) = try screenFetcher(server, folder, clock: clock)
        _ = try await fetcher.fetch(url: url)

        // When the stale reference is fetched
        clock.advance(by: .seconds(300))
        let error = await #expect(throws: StrataError.self) { _ = try await fetcher.fetch(url: url) }

        // Then the 304, about no version the cache holds, is a typed error
        #expect(error?.code == .unexpectedResponse)
        #expect(error?.httpFailure?.status == 304)
        #expect(server.requests.last?.headers["if-none-match"] == nil)
    }

    /// Before, a revalidation or a download on its way when the cache was cleared (a sign-out) added its reference
    /// back after the clear: the 304 re-added the cleared reference, served again as revalidated.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func anAnswerOnItsWayDuringAClearIsNotAdded(revalidates: Bool) async throws {
        // Given a fetch on its way: a revalidation of a stored reference, or a first download, held by the server
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (arrived, release) = (Gate(), Gate())
        let holds = Locked(!revalidates)
        let server = try await LoopbackServer.start([
            (
                "GET /screen",
                { request in
                    if holds.withLock({ $0 }) {
                        arrived.open()
                        await release.wait()
                    }
                    holds.withLock { $0 = true }
                    return Self.answerV1(to: request)
                }
            )
        ])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let cache = try makeCache(folder, clock: clock)
        let fetcher = cache.fetcher(client: try makeClient(folder))
        let url = server.baseURL.appendingPathComponent("screen")
        if revalidates { _ = try await fetcher.fetch(url: url) }
        let fetch = Task { try await fetcher.fetch(url: url) }
        await arrived.wait()

        // When the cache is cleared meanwhile, and the fetch then goes on
        cache.clear()
        release.open()
        #expect(try await fetch.value.reference.data == Data("v1".utf8))

        // Then the cleared cache holds no reference
        #expect(cache.getReference(identifiedBy: url.absoluteString) == nil)
        #expect(cache.persistentStore.count == 0)
    }

    /// A 304 that arrives after another fetch stored a newer version leaves that version as it is: the 304 confirmed
    /// the older one. (It renewed the newer reference: v2's bytes labelled with v1's hash and given v1's lifetime,
    /// served as v1 again by any later 304 to v1's hash.)
    /// A reference reached through a redirect is its target's (RFC 9111, section 4): kept under the URL asked for, it
    /// is revalidated before each reuse, so a moved redirect is followed.
    @Test(.timeLimit(.minutes(1)))
    func aReferenceReachedThroughARedirectIsRevalidatedBeforeItIsReused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let target = Locked("v1")
        let version: @Sendable (String) -> @Sendable (ServerRequest) async throws -> ServerReply = { name in
            { _ in
                ServerReply(
                    status: 200,
                    headers: ["ETag": "\"\(name)\"", "Cache-Control": "max-age=31536000"],
                    body: Data(name.utf8)
                )
            }
        }
        let server = try await LoopbackServer.start([
            ("GET /latest", { _ in ServerReply(status: 302, headers: ["Location": "/\(target.withLock { $0 })"]) }),
            ("GET /v1", version("v1")),
            ("GET /v2", version("v2")),
        ])
        defer { Task { await server.stop() } }
        let cache = try makeCache(folder, clock: ManualClock())
        let (fetcher, url) = (
            cache.fetcher(client: try makeClient(folder)), server.baseURL.appendingPathComponent("latest")
        )
        _ = try await fetcher.fetch(url: url)

        target.withLock { $0 = "v2" }
        let moved = try await fetcher.fetch(url: url)

        #expect(moved.reference.data == Data("v2".utf8))
        #expect(moved.origin == .network)
        #expect(server.requestCount(path: "/latest") == 2)
    }

    /// A successful POST while a GET of the same URL is on its way: the GET's answer (a 200, or a 304 to the stored
    /// hash), which the server may have sent before it applied the POST, does not undo the POST's stale mark.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aGetAnsweredAfterAPostSucceededDoesNotUndoItsStaleMark(revalidates: Bool) async throws {
        // Given a GET of /screen held by the server (a first fetch, or the revalidation of a stored v1)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (arrived, release) = (Gate(), Gate())
        let held = Locked(true)
        let server = try await LoopbackServer.start([
            (
                "GET /screen",
                { request in
                    if held.withLock({ $0 }) {
                        arrived.open()
                        await release.wait()
                    }
                    guard request.headers["if-none-match"] == nil else {
                        return ServerReply(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"])
                    }
                    return ServerReply(
                        status: 200,
                        headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"],
                        body: Data("v1".utf8)
                    )
                }
            ),
            ("POST /screen", { _ in ServerReply(status: 201, body: Data("posted".utf8)) }),
        ])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let cache = try makeCache(folder, clock: clock)
        let (fetcher, url) = (
            cache.fetcher(client: try makeClient(folder)), server.baseURL.appendingPathComponent("screen")
        )
        if revalidates {
            held.withLock { $0 = false }
            _ = try await fetcher.fetch(url: url)
            clock.advance(by: .seconds(61))
            held.withLock { $0 = true }
        }
        let get = Task { try await fetcher.fetch(url: url) }
        await arrived.wait()

        // When a POST to the URL succeeds meanwhile, and the GET's answer then arrives
        held.withLock { $0 = false }
        _ = try await fetcher.fetch(HTTPRequest(.post, url: url))
        release.open()
        _ = try await get.value

        // Then the stored reference is stale: the next GET asks the server (values taken out first: Swift Testing
        // reflects the operands of a failed expectation, and a cache manager holds a lock it cannot copy)
        let stored = try #require(cache.getReference(identifiedBy: url.absoluteString))
        let isValid = cache.isValid(reference: stored)
        let origin = try await fetcher.fetch(url: url).origin
        #expect(!isValid)
        #expect(origin != .cache)
    }

    @Test(.timeLimit(.minutes(1)))
    func aNotModifiedForAnOlderVersionRenewsNoNewerReference() async throws {
        // Given a stored v1 that is revalidated at every use, and its revalidation held by the server
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (arrived, release) = (Gate(), Gate())
        let server = try await Self.holdingRevalidations(arrived, release, answer: Self.answerV1)
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let cache = try makeCache(folder, clock: clock)
        let (fetcher, url) = (
            cache.fetcher(client: try makeClient(folder)), server.baseURL.appendingPathComponent("screen")
        )
        _ = try await fetcher.fetch(url: url)
        let revalidation = Task { try await fetcher.fetch(url: url) }
        await arrived.wait()

        // When another fetch stores v2 meanwhile, and the 304 to v1's hash then arrives
        let newer = CacheReference(
            identifier: url.absoluteString,
            data: Data("v2".utf8),
            hash: "\"v2\"",
            maxAge: 0,
            timeOfCreation: clock.now()
        )
        cache.addToCache(newer)
        release.open()
        #expect(try await revalidation.value.reference.data == Data("v1".utf8))

        // Then v2 is stored as it was: its own hash, its own lifetime
        let stored = try #require(cache.getReference(identifiedBy: url.absoluteString))
        #expect(stored.data == Data("v2".utf8))
        #expect(stored.hash == "\"v2\"")
        #expect(!cache.isValid(reference: stored))
    }

    /// A 304 for a reference that went meanwhile (evicted, removed) stores the reference renewed by the 304, as the
    /// repository asks: before, the stale reference was stored as it was read, and the next use asked the server again.
    @Test(.timeLimit(.minutes(1)))
    func aNotModifiedForAReferenceGoneMeanwhileStoresItRenewed() async throws {
        // Given a stored v1, stale at once, whose revalidation is held by the server, which then renews it for 600 s
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (arrived, release) = (Gate(), Gate())
        let server = try await Self.holdingRevalidations(arrived, release) { request in
            guard request.headers["if-none-match"] != nil else {
                return ServerReply(
                    status: 200,
                    headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=0"],
                    body: Data("v1".utf8)
                )
            }
            return ServerReply(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=600"])
        }
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let (fetcher, url) = try screenFetcher(server, folder, clock: clock)
        let cache = try #require(fetcher.cacheManager as? CacheManager)
        _ = try await fetcher.fetch(url: url)
        let revalidation = Task { try await fetcher.fetch(url: url) }
        await arrived.wait()

        // When the reference goes (from memory and disk) before the 304 arrives
        cache.memoryLayer.removeValue(forKey: url.absoluteString)
        try cache.persistentStore.removeValue(forKey: url.absoluteString)
        release.open()
        let revalidated = try await revalidation.value.origin
        #expect(revalidated == .revalidated)

        // Then v1 is stored renewed: valid, and the next fetch answers from the cache (the values are taken out first:
        // a failed expectation reflects what it names, and reflecting the manager traps on its locks)
        let stored = cache.getReference(identifiedBy: url.absoluteString)
        let isValid = stored.map(cache.isValid(reference:))
        #expect(stored?.data == Data("v1".utf8))
        #expect(isValid == true)
        let next = try await fetcher.fetch(url: url).origin
        #expect(next == .cache)
        #expect(server.requestCount(path: "/screen") == 2)
    }

    /// A successful POST marks the GET's reference stale even when the app gave it a lifetime of `Int.max` seconds:
    /// before, the mark set its time of creation to `distantPast`, which such a lifetime outlasts, and it stayed valid.
    @Test func anUnsafeMethodMarksStaleAReferenceWithAnEndlessLifetime() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let resource = VersionedResource(body: Data("get".utf8), eTag: "\"v1\"")
        let server = try await LoopbackServer.start([
            ("GET /screen", { request in resource.reply(request) }),
            ("POST /screen", { _ in ServerReply(status: 201, body: Data("posted".utf8)) }),
        ])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let (fetcher, url) = try screenFetcher(server, folder, clock: clock)
        let cache = try #require(fetcher.cacheManager as? CacheManager)
        cache.addToCache(
            CacheReference(
                identifier: url.absoluteString,
                data: Data("get".utf8),
                hash: "\"v1\"",
                maxAge: .max,
                timeOfCreation: clock.now()
            )
        )
        let first = try await fetcher.fetch(url: url).origin
        #expect(first == .cache)

        // When a POST to the URL succeeds
        _ = try await fetcher.fetch(HTTPRequest(.post, url: url), identifier: url.absoluteString)

        // Then the reference is stale, the next GET revalidates it, and the 304 keeps its endless lifetime (the values
        // are taken out first: a failed expectation reflects what it names, and reflecting the manager traps on its
        // locks)
        let isValid = cache.getReference(identifiedBy: url.absoluteString).map(cache.isValid(reference:))
        #expect(isValid == false)
        let (revalidated, next) = (try await fetcher.fetch(url: url).origin, try await fetcher.fetch(url: url).origin)
        #expect(revalidated == .revalidated)
        #expect(next == .cache)
        #expect(server.requests.map(\.method) == ["POST", "GET"])
    }

    /// Before, URLs that differ only in their fragment (never sent) were references of their own, each fetched: a
    /// page could make a fetcher request one resource again and again, evicting the app's other references.
    @Test func urlsThatDifferOnlyInTheirFragmentAreOneReference() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: Data("a".utf8), eTag: "\"v1\""), path: "/screen")
        defer { Task { await server.stop() } }
        let (fetcher, url) = try screenFetcher(server, folder, clock: ManualClock())
        let fragments = (0..<5).compactMap { URL(string: url.absoluteString + "#\($0)") }

        var origins: [DataOrigin] = []
        for fragmented in fragments { origins.append(try await fetcher.fetch(url: fragmented).origin) }

        #expect(origins == [.network, .cache, .cache, .cache, .cache])
        #expect(server.requestCount(path: "/screen") == 1)
    }

    /// Before, a full answer that must not be stored (`no-store`) left the older reference in place: the next fetch
    /// served it from the cache, older than what the app had just shown (RFC 9111, section 4.3.3).
    /// (A manager of the app's own, which cannot remove a reference, has it marked stale: revalidated before reuse.)
    @Test(arguments: [false, true])
    func aNoStoreAnswerRemovesTheOlderReference(ownManager: Bool) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await LoopbackServer.start([
            (
                "GET /screen",
                numberedRoute { answer in
                    ServerReply(
                        status: 200,
                        headers: ["Cache-Control": answer == 1 ? "max-age=600" : "no-store", "ETag": "\"v\(answer)\""],
                        body: Data("v\(answer)".utf8)
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        var (fetcher, url) = try screenFetcher(server, folder, clock: clock)
        if ownManager {
            fetcher = CachedFetcher(cacheManager: DictionaryManager(clock: clock), client: fetcher.client, clock: clock)
        }
        #expect(try await fetcher.fetch(url: url).reference.data == Data("v1".utf8))

        // When a pull to refresh asks the server, which now answers no-store
        var refresh = HTTPRequest(.get, url: url)
        refresh.headers["Cache-Control"] = "no-cache"
        #expect(try await fetcher.fetch(refresh, identifier: url.absoluteString).reference.data == Data("v2".utf8))

        // Then the next fetch does not serve v1 from the cache
        let next = try await fetcher.fetch(url: url)
        #expect(next.origin == .network)
        #expect(next.reference.data == Data("v3".utf8))
    }

    /// A request that says `Cache-Control: no-store` (RFC 9111, section 5.2.1.5): its response is not stored.
    @Test func aResponseToANoStoreRequestIsNotCached() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: Data("a".utf8), eTag: "\"v1\""), path: "/screen")
        defer { Task { await server.stop() } }
        let cache = try makeCache(folder, clock: ManualClock())
        let fetcher = cache.fetcher(client: try makeClient(folder))
        let url = server.baseURL.appendingPathComponent("screen")
        var request = HTTPRequest(.get, url: url)
        request.headers["Cache-Control"] = "no-store"

        let first = try await fetcher.fetch(request, identifier: url.absoluteString)

        #expect(first.origin == .network)
        #expect(cache.getReference(identifiedBy: url.absoluteString) == nil)
        #expect(try await fetcher.fetch(url: url).origin == .network)
    }

    /// `no-store`, `Vary: *`, and a `202 Accepted` without freshness (RFC 9111, section 3).
    @Test(arguments: [["Cache-Control": "no-store"], ["Vary": "*"], ["Status": "202"]])
    func responsesThatMustNotBeStoredAreNotCached(headers: [String: String]) async throws {
        let resource = VersionedResource(body: Data("a".utf8), eTag: "\"v1\"", extraHeaders: headers)
        try await withScreen(resource) { screen in
            _ = try await screen.fetcher.fetch(url: screen.url)
            let second = try await screen.fetcher.fetch(url: screen.url)

            #expect(second.origin == .network)
            #expect(screen.cache.getReference(identifiedBy: screen.url.absoluteString) == nil)
            #expect(screen.server.requestCount(path: "/screen") == 2)
        }
    }

    @Test func aCorruptPersistentEntryIsRefetched() async throws {
        // Given a screen cached by a previous run whose entry file was then damaged
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try await startServer(VersionedResource(body: Data("a".utf8), eTag: "\"v1\""), path: "/screen")
        defer { Task { await server.stop() } }
        let clock = ManualClock()
        let url = server.baseURL.appendingPathComponent("screen")
        do {
            let cache = try makeCache(folder, clock: clock)
            _ = try await cache.fetcher(client: try makeClient(folder)).fetch(url: url)
        }
        let entries = folder.url.appendingPathComponent("beagle/entries")
        let files =
            FileManager.default.enumerator(at: entries, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? []
        #expect(files.count == 1)
        for file in files { try Data("{ not json".utf8).write(to: file) }

        // When the next run fetches it
        let errors = ReportedErrors()
        let cache = try makeCache(folder, clock: clock, errors: errors)
        let result = try await cache.fetcher(client: try makeClient(folder)).fetch(url: url)

        // Then it is fetched again (no hash sent) and the corruption reported
        #expect(result.origin == .network)
        #expect(server.requestCount(path: "/screen") == 2)
        #expect(server.requests.last?.headers["if-none-match"] == nil)
        #expect(errors.all.contains { $0.code == .corrupt })
        #expect(cache.getReference(identifiedBy: url.absoluteString)?.data == Data("a".utf8))
    }
}

/// A cache manager of an app's own: references in a dictionary, valid for their `maxAge` from their time of creation.
final class DictionaryManager: CacheManagerProtocol {
    private let references = Locked<[String: CacheReference]>([:])
    private let clock: any WallClock

    init(clock: any WallClock) { self.clock = clock }

    func addToCache(_ reference: CacheReference) { references.withLock { $0[reference.identifier] = reference } }

    func getReference(identifiedBy id: String) -> CacheReference? { references.withLock { $0[id] } }

    func isValid(reference: CacheReference) -> Bool {
        clock.now().timeIntervalSince(reference.timeOfCreation) < TimeInterval(reference.maxAge ?? 0)
    }
}
