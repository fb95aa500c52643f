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
