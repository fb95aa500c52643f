import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import Testing

/// Which responses a transport follows as redirects, the same on either transport.
struct TransportRedirectTests {
    /// A server whose `/start` answers `status` with `headers`, and whose `/elsewhere` answers 200 with `other`.
    private func startServer(answering status: Int, headers: [String: String]) async throws -> LoopbackServer {
        try await LoopbackServer.start([
            ("GET /start", { _ in ServerReply(status: status, headers: headers) }),
            ("GET /elsewhere", { _ in ServerReply(status: 200, body: Data("other".utf8)) }),
        ])
    }

    /// Before, AsyncHTTPClient followed a 304's `Location` as if it were a redirect, and the revalidation answered
    /// with whatever the other resource was: a 304 is the answer to a conditional request, handed back as it is. So
    /// is a 305 (Use Proxy, deprecated), which AsyncHTTPClient followed too.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, [304, 305])
    func aNotModifiedWithALocationIsHandedBackAsItIs(transport kind: TransportUnderTest, status: Int) async throws {
        // Given a server whose 304 names another resource in a Location
        let server = try await startServer(answering: status, headers: ["Location": "/elsewhere", "ETag": "\"v1\""])
        defer { Task { await server.stop() } }
        var request = HTTPRequest(url: server.baseURL.appendingPathComponent("start"))
        request.headers["If-None-Match"] = "\"v1\""

        // When a conditional request gets it
        let response = try await kind.make().send(request, maximumBodySize: 1024)

        // Then the 304 itself is the answer, and the other resource was never asked for
        #expect(response.status == status)
        #expect(response.headers["ETag"] == "\"v1\"")
        #expect(response.body.isEmpty)
        #expect(server.requestCount(path: "/elsewhere") == 0)
    }

    /// A redirect the transport does not follow (a 305 here) is handed back with its body, as any answer is.
    /// (Before, the AsyncHTTPClient transport failed the request to keep AsyncHTTPClient from following it, even on
    /// its own client, which follows nothing: the body was lost, and the connection closed.)
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aRedirectNotFollowedKeepsItsBody(transport kind: TransportUnderTest) async throws {
        let server = try await LoopbackServer.start([
            (
                "GET /start",
                { _ in ServerReply(status: 305, headers: ["Location": "/elsewhere"], body: Data("use".utf8)) }
            ),
            ("GET /elsewhere", { _ in ServerReply(status: 200, body: Data("other".utf8)) }),
        ])
        defer { Task { await server.stop() } }

        let response = try await kind.make().send(
            HTTPRequest(url: server.baseURL.appendingPathComponent("start")),
            maximumBodySize: 1024
        )

        #expect(response.status == 305)
        #expect(response.body == Data("use".utf8))
        #expect(server.requestCount(path: "/elsewhere") == 0)
    }

    /// A download's 304 with a `Location` is handed back too, with no file (AsyncHTTPClient downloaded the other
    /// resource).
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aDownloadsNotModifiedWithALocationIsHandedBackAsItIs(transport kind: TransportUnderTest) async throws {
        let server = try await startServer(answering: 304, headers: ["Location": "/elsewhere"])
        defer { Task { await server.stop() } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file")

        let response = try await kind.make().download(
            HTTPRequest(url: server.baseURL.appendingPathComponent("start")),
            to: destination,
            maximumBodySize: 1024,
            progress: { _ in }
        )

        #expect(response.status == 304)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(server.requestCount(path: "/elsewhere") == 0)
    }

    /// A `HEAD` redirected by a 303 (or any redirect) is followed with a `HEAD`, on either transport. (The URLSession
    /// transport followed a 303 with a `GET`, which downloads the body a `HEAD` asked not to have.)
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, [301, 302, 303, 307, 308])
    func aHeadStaysAHeadAcrossARedirect(transport kind: TransportUnderTest, status: Int) async throws {
        let server = try await LoopbackServer.start([
            ("HEAD /start", { _ in ServerReply(status: status, headers: ["Location": "/elsewhere"]) }),
            ("HEAD /elsewhere", { _ in ServerReply(status: 200, headers: ["X-Seen": "head"]) }),
            ("GET /elsewhere", { _ in ServerReply(status: 200, body: Data("other".utf8)) }),
        ])
        defer { Task { await server.stop() } }
        var request = HTTPRequest(url: server.baseURL.appendingPathComponent("start"))
        request.method = .head

        let response = try await kind.make().send(request, maximumBodySize: 1024)

        #expect(response.status == 200)
        #expect(response.headers["X-Seen"] == "head")
        #expect(response.body.isEmpty)
        #expect(server.requests.map { "\($0.method) \($0.path)" } == ["HEAD /start", "HEAD /elsewhere"])
    }

    /// A write with a body, redirected by a redirect that keeps its method (a 307 or 308; a 301 or 302 of a `PUT`), never
    /// reaches the target without its body: AsyncHTTPClient sends it again whole, the URLSession transport hands the
    /// redirect back. (FoundationNetworking sent it again empty: a `PUT` with `If-Match` replaced the resource with
    /// nothing.)
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, [301, 302, 307, 308])
    func aWriteIsNeverRedirectedWithoutItsBody(transport kind: TransportUnderTest, status: Int) async throws {
        let server = try await LoopbackServer.start([
            ("PUT /start", { _ in ServerReply(status: status, headers: ["Location": "/elsewhere"]) }),
            ("PUT /elsewhere", { _ in ServerReply(status: 200) }),
        ])
        defer { Task { await server.stop() } }
        var request = HTTPRequest(.put, url: server.baseURL.appendingPathComponent("start"))
        request.body = Data("note".utf8)

        let response = try await kind.make().send(request, maximumBodySize: 1024)

        let atTarget = server.requests.filter { $0.path == "/elsewhere" }
        #expect(atTarget.allSatisfy { $0.body == Data("note".utf8) }, "\(atTarget.map(\.body))")
        #expect(response.status == 200 ? atTarget.count == 1 : response.status == status)
    }

    /// A write a 303 turns into a `GET` loses the fields that were about it: the `GET` of the resource it led to is
    /// answered, never refused for the write's `If-Match`. (The URLSession transport sent them: a write carried out
    /// was reported as a conflict; AsyncHTTPClient, which followed redirects for its transport, kept them too.)
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aWriteTurnedIntoAGetLosesItsPreconditions(transport kind: TransportUnderTest) async throws {
        let server = try await LoopbackServer.start([
            ("PUT /start", { _ in ServerReply(status: 303, headers: ["Location": "/after"]) }),
            (
                "GET /after",
                { request in
                    let carried = ["if-match", "idempotency-key", "content-type"].filter { request.headers[$0] != nil }
                    return ServerReply(status: carried.isEmpty ? 200 : 412, body: Data(carried.joined().utf8))
                }
            ),
        ])
        defer { Task { await server.stop() } }
        var request = HTTPRequest(.put, url: server.baseURL.appendingPathComponent("start"))
        request.body = Data("note".utf8)
        request.headers["If-Match"] = "\"v1\""
        request.headers["Idempotency-Key"] = "k1"
        request.headers["Content-Type"] = "text/plain"

        let response = try await HTTPClient(transport: kind.make()).send(request)

        #expect(response.status == 200)
        #expect(response.body.isEmpty)
    }

    /// A write a 303 turned into a `GET` whose answer then fails may have been carried out (a 303 says it was): the
    /// error says so, and is not retried. (The `GET`'s 503 was retryable and said nothing had happened: the write was
    /// sent again.) A write a 307 or 308 sends again as it was is answered by the target as any write: its 503 is
    /// retried, its 412 is the write's conflict.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: TransportUnderTest.all,
        [(303, 503), (303, 429), (303, 408), (307, 503), (308, 412)]
    )
    func aWriteWhoseRedirectFailsIsJudgedByWhatWasSent(transport kind: TransportUnderTest, answers: (Int, Int))
        async throws
    {
        let (redirect, failure) = answers
        let server = try await LoopbackServer.start([
            ("DELETE /start", { _ in ServerReply(status: redirect, headers: ["Location": "/after"]) }),
            ("GET /after", { _ in ServerReply(status: failure) }),
            ("DELETE /after", { _ in ServerReply(status: failure) }),
        ])
        defer { Task { await server.stop() } }
        var request = HTTPRequest(.delete, url: server.baseURL.appendingPathComponent("start"))
        request.headers["Idempotency-Key"] = "k1"

        let error = await #expect(throws: StrataError.self) {
            try await HTTPClient(transport: kind.make()).send(request)
        }

        switch redirect {
        case 303:
            #expect(error?.mayHaveTakenEffect == true && error?.isRetryable == false, "\(String(describing: error))")
        case 307: #expect(error?.isRetryable == true, "\(String(describing: error))")
        default: #expect(error?.code == .conflict, "\(String(describing: error))")
        }
    }

    /// A download by a write that a 303 turns into a `GET` whose answer fails is judged as a send is: it may have taken
    /// effect, and is not retried. (A download's status was mapped without it.)
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aDownloadByAWriteTurnedIntoAFailedGetMayHaveTakenEffect(transport kind: TransportUnderTest) async throws {
        let server = try await LoopbackServer.start([
            ("POST /start", { _ in ServerReply(status: 303, headers: ["Location": "/after"]) }),
            ("GET /after", { _ in ServerReply(status: 503, body: Data("busy".utf8)) }),
        ])
        defer { Task { await server.stop() } }
        let request = HTTPRequest(.post, url: server.baseURL.appendingPathComponent("start"))

        let error = await #expect(throws: StrataError.self) {
            _ = try await HTTPClient(transport: kind.make()).download(request)
        }

        #expect(error?.mayHaveTakenEffect == true && error?.isRetryable == false, "\(String(describing: error))")
    }

    /// A redirect is still followed.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aRedirectIsFollowed(transport kind: TransportUnderTest) async throws {
        let server = try await startServer(answering: 307, headers: ["Location": "/elsewhere"])
        defer { Task { await server.stop() } }

        let url = server.baseURL.appendingPathComponent("start")
        let response = try await kind.make().send(HTTPRequest(url: url), maximumBodySize: 1024)

        #expect(response.status == 200)
        #expect(response.body == Data("other".utf8))
    }
}

/// A resource the server says is gone for good (410).
struct GoneResourceTests {
    /// A delete answered 410 (a server that keeps a tombstone of what it deleted, as for a delete sent again after one
    /// carried out) succeeds, as one answered 404 does; a read answered 410 is `notFound`. (A 410 failed the delete as
    /// an unexpected response.)
    @Test func aDeleteOfWhatIsGoneSucceedsAndAReadOfItIsNotFound() async throws {
        let server = try await LoopbackServer.start([
            ("DELETE /items/a", { _ in ServerReply(status: 410) }),
            ("GET /items/a", { _ in ServerReply(status: 410) }),
        ])
        defer { Task { await server.stop() } }
        let client = HTTPClient()
        let url = server.baseURL.appendingPathComponent("items/a")

        try await NetworkDeleteDataSource(client: client) { _ in HTTPRequest(.delete, url: url) }.delete(KeyQuery("a"))
        let error = await #expect(throws: StrataError.self) { try await client.send(HTTPRequest(url: url)) }

        #expect(error?.code == .notFound)
    }
}
