import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// A request sent with its body in memory, answered with an error status: the client needs the status, its headers
/// and the first bytes of the body only, so an error page larger than the response limit is still the status's
/// error (retryable, with its `Retry-After`), and an endless one ends once its first bytes are in.
struct SendErrorBodyTests {
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func anErrorPageLargerThanTheLimitIsTheStatusErrorWithItsRetryAfter(transport kind: TransportUnderTest)
        async throws
    {
        // Given a server that answers 503 with `Retry-After: 7` and a page of 128 KiB (longer than an error body read
        // to its end), and a client that takes responses of 1 KiB at most
        let page = Data(repeating: 0x62, count: 128 << 10)
        let server = try RawServer.start { write in
            try write(
                Data(
                    "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\nContent-Length: \(page.count)\r\n\r\n".utf8
                ) + page
            )
        }
        defer { server.stop() }
        let client = HTTPClient(transport: kind.make(), configuration: .init(maximumResponseSize: 1 << 10))

        // When a request is sent
        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }

        // Then it fails as a 503 does, not as too large: retryable after 7 seconds, with the page's first bytes
        #expect(error?.code == .unexpectedResponse, "\(String(describing: error))")
        #expect(error?.isRetryable == true)
        #expect(error?.suggestedRetryDelay == .seconds(7))
        #expect(error?.httpFailure?.status == 503)
        #expect(error?.httpFailure?.bodyPrefix == page.prefix(HTTPFailure.bodyPrefixLimit))
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func anEndlessErrorBodyEndsTheSendOnceItsFirstBytesAreIn(transport kind: TransportUnderTest) async throws {
        // Given a server that answers 503 with a chunked body of 1 KiB every 20 ms, for up to a minute
        let written = Locked(0)
        let server = try RawServer.endlessErrorBody(counting: written)
        defer { server.stop() }
        let client = HTTPClient(transport: kind.make(), configuration: .init(totalTimeout: .seconds(120)))

        // When a request is sent
        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }
        let writtenWhenItEnded = written.withLock { $0 }

        // Then it fails with the status and the body's first bytes, long before the server is through
        #expect(error?.httpFailure?.status == 503, "\(String(describing: error))")
        #expect(error?.httpFailure?.bodyPrefix == Data(repeating: 0x61, count: HTTPFailure.bodyPrefixLimit))
        #expect(writtenWhenItEnded < 3_000)
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func anEndlessErrorBodyUnderAShortContentLengthIsStillCut(transport kind: TransportUnderTest) async throws {
        // Given a server that announces an error body of 100 bytes, then sends an endless chunked one (chunked wins,
        // RFC 9112, section 6.3: a client that read on to the announced end would never get there)
        let written = Locked(0)
        let server = try RawServer.endlessErrorBody(counting: written, extraHeaders: "Content-Length: 100\r\n")
        defer { server.stop() }
        let client = HTTPClient(transport: kind.make(), configuration: .init(totalTimeout: .seconds(120)))

        // When a request is sent
        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }
        let writtenWhenItEnded = written.withLock { $0 }

        // Then it fails (with the status, or as the malformed response it is), long before the server is through
        #expect(error != nil)
        #expect(writtenWhenItEnded < 3_000)
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func anErrorWhoseShortBodyIsCutIsStillItsStatus(transport kind: TransportUnderTest) async throws {
        // Given a server that answers 503 with `Retry-After: 7`, announces 2,000 bytes of body, sends 600 and resets
        // the connection
        let server = try RawServer.start { write in
            let head = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\nContent-Length: 2000\r\n\r\n"
            try write(Data(head.utf8) + Data(repeating: 0x64, count: 600))
            Thread.sleep(forTimeInterval: 0.05)
            throw RawServer.ResetConnection()
        }
        defer { server.stop() }
        let client = HTTPClient(transport: kind.make())

        // When a request is sent
        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }

        // Then the answer is the 503 and its first bytes, retryable after 7 seconds, not a lost connection
        #expect(error?.httpFailure?.status == 503, "\(String(describing: error))")
        #expect(error?.suggestedRetryDelay == .seconds(7))
        #expect(error?.httpFailure?.bodyPrefix == Data(repeating: 0x64, count: HTTPFailure.bodyPrefixLimit))
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aSuccessLargerThanTheLimitIsStillTooLarge(transport kind: TransportUnderTest) async throws {
        // Given a server that answers 200 with 64 KiB, and a client that takes 1 KiB at most
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 65536\r\n\r\n".utf8) + Data(count: 64 << 10))
        }
        defer { server.stop() }
        let client = HTTPClient(transport: kind.make(), configuration: .init(maximumResponseSize: 1 << 10))

        // When a request is sent, then the body is refused as before
        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }
        #expect(error?.code == .tooLarge, "\(String(describing: error))")
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aShortAnnouncedErrorBodyIsReadToItsEndSoTheConnectionIsReused(transport kind: TransportUnderTest)
        async throws
    {
        // Given a server that keeps its connections open and answers 404 with a body of 2,000 bytes, sent in two
        // parts 50 ms apart (the first part more than the client keeps)
        let body = Data(repeating: 0x63, count: 2_000)
        let server = try RawServer.start(keepingAlive: true) { write in
            try write(Data("HTTP/1.1 404 Not Found\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body.prefix(1_000))
            Thread.sleep(forTimeInterval: 0.05)
            try write(body.suffix(1_000))
        }
        defer { server.stop() }
        let client = HTTPClient(transport: kind.make())

        // When three requests are sent one after the other
        var errors: [StrataError?] = []
        for _ in 0..<3 {
            errors.append(await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) })
        }

        // Then each is the 404 with the body's first bytes, and all three went over one connection: a body the
        // server announced as short was read to its end rather than cut by closing the connection
        for error in errors {
            #expect(error?.code == .notFound, "\(String(describing: error))")
            #expect(error?.httpFailure?.bodyPrefix == body.prefix(HTTPFailure.bodyPrefixLimit))
        }
        #expect(server.connectionCount == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func aTransportOfTheUsersOwnHandsBackWholeBodiesAsDocumented() async throws {
        // Given a 503 with a page of 64 KiB, and a client that takes 1 KiB at most on a transport of the user's own
        // (a test transport that sends through a `URLSessionTransport`'s public method)
        let server = try RawServer.start { write in
            try write(
                Data("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 65536\r\n\r\n".utf8) + Data(count: 64 << 10)
            )
        }
        defer { server.stop() }
        let client = HTTPClient(
            transport: TestTransport(.network),
            configuration: .init(maximumResponseSize: 1 << 10)
        )

        // When a request is sent, then the whole page was asked for, and it is too large
        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }
        #expect(error?.code == .tooLarge, "\(String(describing: error))")
    }
}
