import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The conditional forms of the client: a 304 is a value with every header, and a download answered 304 writes
/// nothing to disk.
struct ConditionalFetchTests {
    /// A server whose `/file` answers 304 to `If-None-Match: "v1"` and 200 with `body` otherwise.
    private static func fileServer(body: Data) async throws -> LoopbackServer {
        try await LoopbackServer.start([
            (
                "GET /file",
                { request in
                    if request.headers["if-none-match"] == "\"v1\"" {
                        return ServerReply(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=30"])
                    }
                    return ServerReply(status: 200, headers: ["ETag": "\"v1\""], body: body)
                }
            )
        ])
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aDownloadAnswered304CreatesNoFile(transport kind: TransportUnderTest) async throws {
        // Given a server that answers 304 to the stored ETag, and a client downloading into an empty folder
        let body = pattern(count: 4_096)
        let server = try await Self.fileServer(body: body)
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)
        let request = HTTPRequest(baseURL: server.baseURL, path: "file")

        // When it revalidates
        let answer = try await client.download(request, ifModifiedSince: ConditionalHeaders(eTag: "\"v1\""))

        // Then the 304 is a value with its headers, and the folder stayed empty all along (the transport never
        // created a file, so none was read or deleted)
        guard case .notModified(let response) = answer else {
            Issue.record("Expected not modified, got \(answer)")
            return
        }
        #expect(response.status == 304)
        #expect(response.headers["Cache-Control"] == "max-age=30")
        #expect(try folder.contents().isEmpty)
        #expect(server.requests.last?.headers["if-none-match"] == "\"v1\"")
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aModifiedDownloadIsAFileAsBefore(transport kind: TransportUnderTest) async throws {
        let body = pattern(count: 4_096)
        let server = try await Self.fileServer(body: body)
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)

        let answer = try await client.download(
            HTTPRequest(baseURL: server.baseURL, path: "file"),
            ifModifiedSince: ConditionalHeaders(eTag: "\"v0\"")
        )

        guard case .modified(let file) = answer else {
            Issue.record("Expected modified, got \(answer)")
            return
        }
        #expect(try Data(contentsOf: file.fileURL) == body)
        #expect(try folder.contents() == [file.fileURL.lastPathComponent])
    }

    /// A client on `kind` that downloads into a temporary folder of its own (removed by the caller), and the
    /// request for `/file` on `server`: what a revalidation of the stored `"v1"` sends.
    private static func revalidation(_ kind: TransportUnderTest, on server: LoopbackServer) throws
        -> (client: HTTPClient, folder: TemporaryFolder, request: HTTPRequest)
    {
        let folder = try TemporaryFolder()
        let client = makeClient(kind.make(), downloadDirectory: folder.url)
        return (client, folder, HTTPRequest(baseURL: server.baseURL, path: "file"))
    }

    /// A server that has moved on to `"v2"` but answers any conditional request 304 with the new tag: a 304
    /// about another version than the one asked about.
    private static func movedOnServer(body: Data) async throws -> LoopbackServer {
        try await LoopbackServer.start([
            (
                "GET /file",
                { request in
                    if request.headers["if-none-match"] != nil {
                        return ServerReply(status: 304, headers: ["ETag": "\"v2\""])
                    }
                    return ServerReply(status: 200, headers: ["ETag": "\"v2\""], body: body)
                }
            )
        ])
    }

    /// A 304 whose `ETag` names another version updates nothing (RFC 9111, section 4.3.4): both conditional forms
    /// ask once more without conditions and return the new version, in memory and as a file.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, LimitedExchange.Form.allCases)
    func aNotModifiedAboutAnotherVersionIsAskedAgainWithoutConditions(
        transport kind: TransportUnderTest,
        form: LimitedExchange.Form
    ) async throws {
        // Given a server at "v2" that answers 304 to the stored "v1"
        let body = pattern(count: 4_096)
        let server = try await Self.movedOnServer(body: body)
        defer { Task { await server.stop() } }
        let (client, folder, request) = try Self.revalidation(kind, on: server)
        defer { folder.remove() }
        let stored = ConditionalHeaders(eTag: "\"v1\"")

        // When the client revalidates
        let received: (body: Data, eTag: String?)?
        switch form {
        case .data:
            let answer = try await client.send(request, ifModifiedSince: stored)
            guard case .modified(let response) = answer else { received = nil; break }
            received = (response.body, response.eTag)
        case .download:
            let answer = try await client.download(request, ifModifiedSince: stored)
            guard case .modified(let file) = answer else { received = nil; break }
            received = (try Data(contentsOf: file.fileURL), file.headers["ETag"])
        }

        // Then it gets the new version, from a second request that named no version
        #expect(received?.body == body)
        #expect(received?.eTag == "\"v2\"")
        #expect(server.requests.map { $0.headers["if-none-match"] } == ["\"v1\"", nil])
    }

    /// Before, the request sent again after a 304 about another version had a total deadline of its own, so one
    /// conditional call could take twice ``HTTPRequest/totalTimeout``. The answers take their time on the transport's
    /// deadline clock, which the client reads the call's deadline on too, moved on while the server holds each one: no
    /// wait, and no window a loaded machine could miss.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, LimitedExchange.Form.allCases)
    func theRequestAskedAgainSharesTheFirstOnesTotalDeadline(
        transport kind: TransportUnderTest,
        form: LimitedExchange.Form
    ) async throws {
        // Given a server at "v2" that holds each answer until the test lets it go: a 304 to "v1", then the new version
        let answers = [Gate(), Gate()]
        let received = Locked(0)
        let server = try await LoopbackServer.start([
            (
                "GET /file",
                { request in
                    let number = received.withLock { count in
                        count += 1
                        return count
                    }
                    await answers[min(number, answers.count) - 1].wait()
                    if request.headers["if-none-match"] != nil {
                        return ServerReply(status: 304, headers: ["ETag": "\"v2\""])
                    }
                    return ServerReply(status: 200, headers: ["ETag": "\"v2\""], body: Data("v2".utf8))
                }
            )
        ])
        defer {
            for answer in answers { answer.open() }
            Task { await server.stop() }
        }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let transport = kind.make()
        let client = makeClient(transport, downloadDirectory: folder.url)
        var request = HTTPRequest(baseURL: server.baseURL, path: "file")
        request.timeout = .seconds(90)
        request.totalTimeout = .seconds(100)
        let stored = ConditionalHeaders(eTag: "\"v1\"")

        // When the client revalidates under a total deadline of 100 s, the 304 coming after 60 s and the new version
        // still held 60 s after it was asked for (each within the idle timeout and the total deadline, together past
        // the total deadline)
        let revalidating = Task {
            switch form {
            case .data: _ = try await client.send(request, ifModifiedSince: stored)
            case .download: _ = try await client.download(request, ifModifiedSince: stored)
            }
        }
        await poll(until: { received.withLock { $0 } == 1 })
        transport.advanceDeadlineClock(by: .seconds(60))
        answers[0].open()
        await poll(until: { received.withLock { $0 } == 2 })
        transport.advanceDeadlineClock(by: .seconds(60))
        let error = await strataError { try await revalidating.value }

        // Then the call as a whole ends at the deadline: the second request had only what the first left
        #expect(error?.code == .network)
        #expect((error?.underlying as? URLError)?.code == .timedOut)
        #expect(error?.message.contains("total deadline") == true, "\(String(describing: error))")
        #expect(try folder.contents().isEmpty)
    }

    /// A server that answers 304 about another version even when asked without conditions names no copy it could
    /// be about: both conditional forms end in `unexpectedResponse` after the second request, and nothing is kept.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, LimitedExchange.Form.allCases)
    func aNotModifiedToTheUnconditionalRequestIsAnUnexpectedResponse(
        transport kind: TransportUnderTest,
        form: LimitedExchange.Form
    ) async throws {
        // Given a server that answers every request with 304 and the tag "v2"
        let server = try await LoopbackServer.start([
            ("GET /file", { _ in ServerReply(status: 304, headers: ["ETag": "\"v2\""]) })
        ])
        defer { Task { await server.stop() } }
        let (client, folder, request) = try Self.revalidation(kind, on: server)
        defer { folder.remove() }
        let stored = ConditionalHeaders(eTag: "\"v1\"")

        // When the client revalidates the stored "v1"
        let error = await strataError {
            switch form {
            case .data: _ = try await client.send(request, ifModifiedSince: stored)
            case .download: _ = try await client.download(request, ifModifiedSince: stored)
            }
        }

        // Then the 304 answered to the request without conditions is an error, not a renewal of "v1"
        #expect(error?.code == .unexpectedResponse)
        #expect(server.requests.map { $0.headers["if-none-match"] } == ["\"v1\"", nil])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    /// A 304 with the tag asked about, a weak form of it, or no tag at all renews as before: one request.
    @Test(.timeLimit(.minutes(1)), arguments: ["\"v1\"", "W/\"v1\"", nil])
    func aNotModifiedAboutTheVersionAskedAboutIsAValue(answered: String?) async throws {
        let server = try await LoopbackServer.start([
            ("GET /file", { _ in ServerReply(status: 304, headers: answered.map { ["ETag": $0] } ?? [:]) })
        ])
        defer { Task { await server.stop() } }
        let client = makeClient()

        let answer = try await client.send(
            HTTPRequest(baseURL: server.baseURL, path: "file"),
            ifModifiedSince: ConditionalHeaders(eTag: "\"v1\"")
        )

        guard case .notModified = answer else {
            Issue.record("Expected not modified, got \(answer)")
            return
        }
        #expect(server.requests.count == 1)
    }

    /// The stored copy's `Last-Modified`, the only validator a revalidation sends in the tests below.
    private static let storedDate = "Sun, 01 Nov 2026 08:00:00 GMT"

    /// A 304 to an `If-Modified-Since`-only request that carries a strong `ETag` (which the stored copy lacks) or
    /// another `Last-Modified` than the one sent is about another version (RFC 9111, section 4.3.4): the client asks
    /// again without conditions and returns the new version, rather than a 304 that would label the old body.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [["ETag": "\"v2\""], ["Last-Modified": "Tue, 01 Dec 2026 08:00:00 GMT"]]
    )
    func aNotModifiedToAnIfModifiedSinceNamingAnotherVersionIsAskedAgain(headers: [String: String]) async throws {
        // Given a server at a new version that answers any If-Modified-Since with 304 and the new validator
        let body = Data("new".utf8)
        let server = try await LoopbackServer.start([
            (
                "GET /file",
                { request in
                    if request.headers["if-modified-since"] != nil { return ServerReply(status: 304, headers: headers) }
                    return ServerReply(status: 200, headers: headers, body: body)
                }
            )
        ])
        defer { Task { await server.stop() } }

        // When the client revalidates a copy stored with a Last-Modified only
        let answer = try await makeClient().send(
            HTTPRequest(baseURL: server.baseURL, path: "file"),
            ifModifiedSince: ConditionalHeaders(lastModified: Self.storedDate)
        )

        // Then it gets the new version from a second request without conditions
        guard case .modified(let response) = answer else {
            Issue.record("Expected modified, got \(answer)")
            return
        }
        #expect(response.body == body)
        #expect(server.requests.map { $0.headers["if-modified-since"] } == [Self.storedDate, nil])
    }

    /// A 304 to an `If-Modified-Since`-only request with a weak `ETag`, the date sent (in another HTTP date form),
    /// or no validator renews as before: one request.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [["ETag": "W/\"v1\""], ["Last-Modified": "Sunday, 01-Nov-26 08:00:00 GMT"], [:]]
    )
    func aNotModifiedToAnIfModifiedSinceAboutTheStoredVersionIsAValue(headers: [String: String]) async throws {
        let server = try await LoopbackServer.start([
            ("GET /file", { _ in ServerReply(status: 304, headers: headers) })
        ])
        defer { Task { await server.stop() } }

        let answer = try await makeClient().send(
            HTTPRequest(baseURL: server.baseURL, path: "file"),
            ifModifiedSince: ConditionalHeaders(lastModified: Self.storedDate)
        )

        guard case .notModified = answer else {
            Issue.record("Expected not modified, got \(answer)")
            return
        }
        #expect(server.requests.count == 1)
    }

    /// A 304's validators replace the stored ones only when its `ETag` names the stored version.
    @Test func aNotModifiedKeepsTheStoredValidatorsUnlessItsTagMatches() {
        let stored = ConditionalHeaders(eTag: nil, lastModified: Self.storedDate)
        let weak = HTTPResponse(status: 304, headers: ["ETag": "W/\"v2\"", "Last-Modified": "x"], body: Data())
        #expect(stored.renewed(by: weak) == stored)
        let tagged = ConditionalHeaders(eTag: "\"v1\"", lastModified: Self.storedDate)
        let same = HTTPResponse(status: 304, headers: ["ETag": "W/\"v1\"", "Last-Modified": "y"], body: Data())
        #expect(tagged.renewed(by: same) == ConditionalHeaders(eTag: "W/\"v1\"", lastModified: "y"))
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func anErrorStatusOfADownloadCreatesNoFileAndKeepsTheBodyPrefix(transport kind: TransportUnderTest) async throws {
        let server = try await LoopbackServer.start([
            ("GET /file", { _ in ServerReply(status: 503, headers: ["Retry-After": "5"], body: Data("busy".utf8)) })
        ])
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)

        let error = await strataError {
            _ = try await client.download(HTTPRequest(baseURL: server.baseURL, path: "file"))
        }

        #expect(error?.code == .unexpectedResponse)
        #expect(error?.httpFailure?.status == 503)
        #expect(error?.httpFailure?.bodyText == "busy")
        #expect(error?.suggestedRetryDelay == .seconds(5))
        #expect(error?.description.contains("(HTTP 503, retry after 5.0 seconds)") == true)
        #expect(try folder.contents().isEmpty)
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func repeatedHeaderFieldsSurviveInOrder(transport kind: TransportUnderTest) async throws {
        // Given a server that sends two Set-Cookie, two Link and a Cache-Control split over two lines
        let fields = [
            "Set-Cookie: a=1; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
            "Link: </one>; rel=\"preload\"",
            "Cache-Control: max-age=60",
            "Set-Cookie: b=2; Path=/",
            "Link: </two>; rel=\"preload\"",
            "Cache-Control: no-cache",
        ]

        // When
        let response = try await Self.send(answeredWith: fields, through: kind)

        // Then every field line is there, in order
        #expect(
            response.headers.values(for: "set-cookie") == [
                "a=1; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2; Path=/",
            ]
        )
        #expect(response.headers.values(for: "Link") == ["</one>; rel=\"preload\"", "</two>; rel=\"preload\""])
        #expect(response.headers.values(for: "Cache-Control") == ["max-age=60", "no-cache"])
        #expect(response.cacheControl.maxAge == .seconds(60))
        #expect(response.cacheControl.noCache)
    }

    /// Each transport's header fields are read by bytes: a joiner after a comma (`no-store,\u{200D}`) no longer
    /// hides the `no-store` before it, nor a combining mark after a cookie's `=` the cookie's start.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aMarkAfterACommaHidesNoDirectiveAndNoCookie(transport kind: TransportUnderTest) async throws {
        // Given a server whose Cache-Control lines end in a joiner after a comma, and whose second cookie's value
        // begins with a combining mark
        let fields = [
            "Cache-Control: max-age=60,\u{200D}", "Cache-Control: no-store,\u{200D}",
            "Set-Cookie: a=1; Path=/", "Set-Cookie: b=\u{301}2; Path=/",
        ]

        // When
        let response = try await Self.send(answeredWith: fields, through: kind)

        // Then the directives are heard, and the two cookies stay two
        #expect(response.cacheControl.noStore)
        #expect(response.cacheControl.maxAge == .seconds(60))
        #expect(!HTTPFreshness(response: response, requestTime: Date(), responseTime: Date()).isStorable)
        #expect(response.headers.values(for: "set-cookie").count == 2)
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func anUnclosedAngleBracketSwallowsNoOtherFieldLine(transport kind: TransportUnderTest) async throws {
        // Given a server whose first Cache-Control and first Link lines each open a `<` they never close
        let fields = ["Cache-Control: x=<a", "Link: <one", "Cache-Control: no-store", "Link: </two>; rel=\"preload\""]

        // When
        let response = try await Self.send(answeredWith: fields, through: kind)

        // Then each line is its own field on both transports (a `<` groups only inside `Link`, and only once closed)
        #expect(response.headers.values(for: "Cache-Control") == ["x=<a", "no-store"])
        #expect(response.headers.values(for: "Link") == ["<one", "</two>; rel=\"preload\""])
        #expect(response.cacheControl.noStore)
        #expect(response.cacheControl.extensions["x"] == .some("<a"))
    }

    /// Sends a request through `kind` to a server that answers `200 OK` with `fields`, as field lines in order, and
    /// a body of two bytes.
    private static func send(answeredWith fields: [String], through kind: TransportUnderTest) async throws
        -> HTTPResponse
    {
        let head = (["HTTP/1.1 200 OK", "Content-Length: 2", "Connection: close"] + fields).joined(separator: "\r\n")
        let server = try RawServer.start { write in try write(Data((head + "\r\n\r\nok").utf8)) }
        defer { server.stop() }
        return try await makeClient(kind.make()).send(HTTPRequest(url: server.baseURL))
    }
}
