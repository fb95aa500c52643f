import FlyingSocks
import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct TransportFailureTests {
    @Test func slowResponseTimesOutAsNetworkError() async throws {
        // Given a server that answers only when the test lets it
        let gate = Gate()
        let server = try await LoopbackServer.start([
            (
                "GET /slow",
                { _ in
                    await gate.wait()
                    return ServerReply(status: 200)
                }
            )
        ])
        defer {
            gate.open()
            Task { await server.stop() }
        }

        // When the request allows half a second
        let request = HTTPRequest(.get, baseURL: server.baseURL, path: "slow", timeout: .milliseconds(500))
        let error = await strataError { _ = try await makeClient().send(request) }

        // Then
        #expect(error?.code == .network)
        #expect((error?.underlying as? URLError)?.code == .timedOut)
        #expect(error?.isRetryable == true)
    }

    @Test func connectionRefusedIsNetworkError() async throws {
        // Given a port that nothing listens on
        let socket = try Socket(domain: AF_INET, type: .stream)
        try socket.bind(to: .inet(ip4: "127.0.0.1", port: 0))
        guard case .ip4(_, let port) = try socket.sockname() else { return }
        try socket.close()

        let request = HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/")!)
        let error = await strataError { _ = try await makeClient().send(request) }

        #expect(error?.code == .network)
        #expect(error?.underlying is URLError)
    }

    @Test func truncatedBodyIsNetworkError() async throws {
        // Given a server that promises 1,000 bytes, sends 10 and closes
        let server = try await RawServer.start { write in
            try await write(Data("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n".utf8))
            try await write(Data(repeating: 1, count: 10))
        }
        defer { server.stop() }

        let error = await strataError { _ = try await makeClient().send(HTTPRequest(url: server.baseURL)) }

        #expect(error?.code == .network)
    }

    @Test func contentLengthOverTheLimitFailsBeforeTheBody() async throws {
        let server = try await LoopbackServer.start([
            ("GET /big", { _ in ServerReply(status: 200, body: pattern(count: 2 * 1024 * 1024)) })
        ])
        defer { Task { await server.stop() } }

        let client = makeClient(maximumResponseSize: 1024 * 1024)
        let error = await strataError { _ = try await client.send(HTTPRequest(baseURL: server.baseURL, path: "big")) }

        #expect(error?.code == .tooLarge)
        #expect(error?.httpStatus == 200)
    }

    @Test(
        "A body without a length stops at the limit",
        arguments: [
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n",
        ]
    )
    func streamedBodyOverTheLimitIsNotReadWhole(head: String) async throws {
        // Given a server that would send 64 MiB without announcing it
        let chunked = head.contains("chunked")
        let planned = 64 * 1024 * 1024
        let sent = ByteCounter()
        let server = try await RawServer.start { write in
            try await write(Data(head.utf8))
            let chunk = Data(repeating: 7, count: 64 * 1024)
            let framed = chunked ? Data("10000\r\n".utf8) + chunk + Data("\r\n".utf8) : chunk
            while sent.total < planned {
                try await write(framed)
                sent.add(chunk.count)
            }
            if chunked { try await write(Data("0\r\n\r\n".utf8)) }
        }
        defer { server.stop() }

        // When the client accepts 1 MiB
        let client = makeClient(maximumResponseSize: 1024 * 1024)
        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }

        // Then it fails as soon as the limit is crossed, long before the server is done
        #expect(error?.code == .tooLarge)
        #expect(sent.total < planned)
    }

    @Test func contentLengthThatUnderstatesIsCutAtTheLength() async throws {
        // Given a server that announces 100 bytes and pushes far more
        let server = try await RawServer.start { write in
            try await write(Data("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n".utf8))
            try await write(Data(repeating: 3, count: 4 * 1024 * 1024))
        }
        defer { server.stop() }

        let response = try await makeClient(maximumResponseSize: 1024).send(HTTPRequest(url: server.baseURL))

        #expect(response.body.count == 100)
    }
}
