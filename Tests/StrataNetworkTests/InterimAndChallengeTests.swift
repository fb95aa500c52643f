import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// Heads that are not the answer, and answers that ask for credentials, on every transport: an interim `1xx` head
/// before the final one (RFC 9110, section 15.2) changes nothing of the final answer, and a `401` that names Basic
/// authentication is the answer at once.
struct InterimAndChallengeTests {
    /// The final answer's body: longer than an error body's prefix, so a body taken for one would be cut.
    static let body = Data(repeating: 0x61, count: 2_000)

    /// The interim heads a server may send first, and whether the final body is chunked.
    static let cases: [(interim: String, chunked: Bool)] = [
        ("HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n", false),
        ("HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n", true),
        ("HTTP/1.1 100 Continue\r\n\r\n", false),
    ]

    /// A server answering `interim`, then `200` with ``body``.
    private static func server(interim: String, chunked: Bool) throws -> RawServer {
        try RawServer.start { write in
            try write(Data(interim.utf8))
            if chunked {
                try write(
                    Data("HTTP/1.1 200 OK\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n".utf8)
                )
                try write(body + Data("\r\n0\r\n\r\n".utf8))
            } else {
                try write(Data("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2000\r\n\r\n".utf8) + body)
            }
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, cases.indices)
    func anInterimHeadLeavesTheFinalAnswerWhole(transport kind: TransportUnderTest, index: Int) async throws {
        let (interim, chunked) = Self.cases[index]
        let server = try Self.server(interim: interim, chunked: chunked)
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = HTTPClient(
            transport: kind.make(),
            configuration: .init(timeout: .seconds(30), downloadDirectory: folder.url)
        )

        let sent = try await client.send(HTTPRequest(url: server.baseURL))
        #expect(sent.status == 200)
        #expect(sent.body == Self.body)

        let file = try await client.download(HTTPRequest(url: server.baseURL))
        #expect(try Data(contentsOf: file.fileURL) == Self.body)
    }

    /// A server answering `401` with `WWW-Authenticate: Basic realm="api"` and a short body.
    private static func unauthorizedServer() throws -> RawServer {
        try RawServer.start { write in
            try write(
                Data(
                    "HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nWWW-Authenticate: Basic realm=\"api\"\r\nContent-Length: 2\r\n\r\nno"
                        .utf8
                )
            )
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aBasicChallengeIsAnsweredAtOnceWithItsStatus(transport kind: TransportUnderTest) async throws {
        let server = try Self.unauthorizedServer()
        defer { server.stop() }
        let request = HTTPRequest(url: server.baseURL)
        let started = ContinuousClock.now

        // Through the client: the status's error, long before the 60 s idle timeout (half of it is the bound below:
        // the trait suites' parallel run, with PostgreSQL servers starting beside it, has made these two requests take
        // 13 to 17 s on AsyncHTTPClient).
        let client = HTTPClient(transport: kind.make(), configuration: .init(timeout: .seconds(60)))
        let error = await strataError { _ = try await client.send(request) }
        #expect(error?.code == .unauthorized, "\(String(describing: error))")
        #expect(error?.httpFailure?.status == 401)

        // Through the transport itself: the 401 with its body, never a retryable timeout.
        var timed = request
        timed.timeout = .seconds(60)
        let response = try await kind.make().send(timed, maximumBodySize: 1_024)
        #expect(response.status == 401)
        #expect(response.body == Data("no".utf8))
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}
