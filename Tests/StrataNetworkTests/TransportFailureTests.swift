import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct TransportFailureTests {
    @Test(arguments: TransportUnderTest.all)
    func slowResponseTimesOutAsNetworkError(transport kind: TransportUnderTest)
        async throws
    {
        // Given a server that answers only when the test lets it
        let gate = Gate()
        let server = try await gatedServer(gate)
        defer {
            gate.open()
            Task { await server.stop() }
        }

        // When the request allows half a second
        let request = HTTPRequest(.get, baseURL: server.baseURL, path: "slow", timeout: .milliseconds(500))
        let error = await strataError { _ = try await makeClient(kind.make()).send(request) }

        // Then
        #expect(error?.code == .network)
        #expect((error?.underlying as? URLError)?.code == .timedOut)
        #expect(error?.isRetryable == true)
        // (the request was sent: a write may have been carried out)
        #expect(error?.mayHaveTakenEffect == true)
    }

    @Test(arguments: TransportUnderTest.all)
    func connectionRefusedIsNetworkError(transport kind: TransportUnderTest)
        async throws
    {
        // Given a port that nothing listens on
        let refusing = try RefusingPort()

        let request = HTTPRequest(url: refusing.baseURL)
        let error = await strataError { _ = try await makeClient(kind.make()).send(request) }

        #expect(error?.code == .network)
        #expect(error?.underlying is URLError)
        // (nothing was sent)
        #expect(error?.mayHaveTakenEffect == false)
    }

    @Test(arguments: TransportUnderTest.all)
    func truncatedBodyIsNetworkError(transport kind: TransportUnderTest)
        async throws
    {
        // Given a server that promises 1,000 bytes, sends 10 and closes
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n".utf8))
            try write(Data(repeating: 1, count: 10))
        }
        defer { server.stop() }

        let error = await strataError { _ = try await makeClient(kind.make()).send(HTTPRequest(url: server.baseURL)) }

        #expect(error?.code == .network)
        #expect(error?.mayHaveTakenEffect == true)
    }

    /// A body that runs past its `Content-Length` (the head says `Transfer-Encoding: chunked` too, which libcurl
    /// follows) is a `network` error on both transports, for a send and a download. (On the URLSession transport it
    /// was a success, its body ten times the length announced, a download's progress past its total.)
    @Test(arguments: TransportUnderTest.all)
    func aBodyPastItsContentLengthIsANetworkError(transport kind: TransportUnderTest) async throws {
        let server = try RawServer.start { write in
            let head = ["HTTP/1.1 200 OK", "Content-Length: 10", "Transfer-Encoding: chunked", "Connection: close"]
            try write(Data((head.joined(separator: "\r\n") + "\r\n\r\n").utf8))
            try write(Data("64\r\n".utf8) + Data(repeating: 1, count: 100) + Data("\r\n0\r\n\r\n".utf8))
        }
        defer { server.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(kind.make(), downloadDirectory: folder.url)

        let sent = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }
        let downloaded = await strataError { _ = try await client.download(HTTPRequest(url: server.baseURL)) }

        #expect(sent?.code == .network, "\(String(describing: sent))")
        #expect(downloaded?.code == .network, "\(String(describing: downloaded))")
        #expect(try folder.contents().isEmpty)
    }

    @Test(arguments: TransportUnderTest.all)
    func contentLengthOverTheLimitFailsBeforeTheBody(
        transport kind: TransportUnderTest
    ) async throws {
        let server = try await LoopbackServer.start([
            ("GET /big", { _ in ServerReply(status: 200, body: pattern(count: 2 * 1024 * 1024)) })
        ])
        defer { Task { await server.stop() } }

        let client = makeClient(kind.make(), maximumResponseSize: 1024 * 1024)
        let error = await strataError { _ = try await client.send(HTTPRequest(baseURL: server.baseURL, path: "big")) }

        #expect(error?.code == .tooLarge)
        #expect(error?.httpFailure?.status == 200)
    }

    @Test(
        "A body without a length stops at the limit",
        arguments: TransportUnderTest.all,
        [
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n",
        ]
    )
    func streamedBodyOverTheLimitIsNotReadWhole(transport kind: TransportUnderTest, head: String) async throws {
        // Given a server that sends 64 MiB without announcing a length, then never ends the body
        let chunked = head.contains("chunked")
        let never = ThreadLatch()
        let server = try RawServer.start { write in
            try write(Data(head.utf8))
            let chunk = Data(repeating: 7, count: 64 * 1024)
            let framed = chunked ? Data("10000\r\n".utf8) + chunk + Data("\r\n".utf8) : chunk
            for _ in 0..<1024 { try write(framed) }
            never.wait()
        }
        defer {
            never.open()
            server.stop()
        }

        // When the client accepts 1 MiB
        let client = makeClient(kind.make(), maximumResponseSize: 1024 * 1024)
        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }

        // Then it fails because the limit was crossed, not because a body that never ends timed out: the
        // check runs while the body streams, whatever the machine's load lets through before it acts
        #expect(error?.code == .tooLarge)
    }

    @Test(arguments: TransportUnderTest.all)
    func contentLengthThatUnderstatesIsCutAtTheLength(
        transport kind: TransportUnderTest
    ) async throws {
        // Given a server that announces 100 bytes and pushes far more
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n".utf8))
            try write(Data(repeating: 3, count: 4 * 1024 * 1024))
        }
        defer { server.stop() }

        let response = try await makeClient(kind.make(), maximumResponseSize: 1024).send(
            HTTPRequest(url: server.baseURL)
        )

        #expect(response.body.count == 100)
    }
}
