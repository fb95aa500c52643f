import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Network faults against a real server on 127.0.0.1: lies and loops end in typed errors, never a hang.
struct ReliabilityNetworkTests {
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aTwoGigabyteContentLengthLieIsRefusedBeforeTheBody(transport kind: TransportUnderTest) async throws {
        // Given a server that announces 2 GiB and sends 10 bytes
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2147483648\r\nConnection: close\r\n\r\n".utf8))
            try write(Data(repeating: 1, count: 10))
        }
        defer { server.stop() }

        // When / Then a client with a 1 MiB limit, and one with the default 100 MiB limit, refuse it from the
        // announced length, before any of the body
        for limit in [1024 * 1024, HTTPClient.Configuration().maximumResponseSize] {
            let error = await strataError {
                _ = try await makeClient(kind.make(), maximumResponseSize: limit).send(HTTPRequest(url: server.baseURL))
            }
            #expect(error?.code == .tooLarge, "\(String(describing: error))")
            #expect(error?.httpFailure?.status == 200)
            #expect(error?.message.contains("Content-Length 2147483648") == true, "\(String(describing: error))")
        }

        // And a client that would accept 2 GiB sees the lie when the connection closes after 10 bytes
        let unlimited = await strataError {
            _ = try await makeClient(kind.make(), maximumResponseSize: .max).send(HTTPRequest(url: server.baseURL))
        }
        #expect(unlimited?.code == .network, "\(String(describing: unlimited))")
        #expect(unlimited?.isRetryable == true)
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aRedirectLoopEndsInATypedError(transport kind: TransportUnderTest) async throws {
        let server = try await LoopbackServer.start([
            ("GET /loop", { _ in ServerReply(status: 302, headers: ["Location": "/loop"]) })
        ])
        defer { Task { await server.stop() } }

        let error = await strataError {
            _ = try await makeClient(kind.make()).send(HTTPRequest(baseURL: server.baseURL, path: "loop"))
        }

        // The transport follows redirects and gives up with "too many redirects" (URLSession after 20 on Linux, 16
        // on Apple platforms; AsyncHTTPClient at the first redirect back to a URL it has seen): a network error,
        // never a 3xx handed back as a success
        #expect(error?.code == .network, "\(String(describing: error))")
        #expect((error?.underlying as? URLError)?.code == .httpTooManyRedirects, "\(String(describing: error))")
        #expect((1...21).contains(server.requestCount(path: "/loop")), "\(server.requestCount(path: "/loop"))")
    }

    /// Before, URLSession refused with `tooLarge` a `HEAD`, or a 304, whose `Content-Length` named a representation
    /// larger than the limit: a length for a body that never comes (RFC 9110, section 8.6).
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aLengthForABodyThatNeverComesIsNotHeldToTheLimit(transport kind: TransportUnderTest) async throws {
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 209715200\r\nETag: \"v1\"\r\n\r\n".utf8))
        }
        defer { server.stop() }
        let client = makeClient(kind.make(), maximumResponseSize: 1024 * 1024)

        let head = try await client.send(HTTPRequest(.head, url: server.baseURL))
        #expect(head.status == 200)
        #expect(head.body.isEmpty)

        let notModified = try RawServer.start { write in
            try write(Data("HTTP/1.1 304 Not Modified\r\nContent-Length: 209715200\r\nETag: \"v1\"\r\n\r\n".utf8))
        }
        defer { notModified.stop() }
        let answer = try await client.send(
            HTTPRequest(url: notModified.baseURL),
            ifModifiedSince: ConditionalHeaders(eTag: "\"v1\"")
        )
        guard case .notModified = answer else {
            Issue.record("expected not modified, got \(answer)")
            return
        }
    }

    /// Before, a 304 was taken as *not modified* even when nothing was asked: a stored `ETag` that is no entity tag
    /// is never sent, and a server (or a proxy) answering 304 to the plain request renewed the stale copy.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aNotModifiedToConditionsThatCouldNotBeSentIsUnexpected(transport kind: TransportUnderTest) async throws {
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 304 Not Modified\r\nContent-Length: 0\r\n\r\n".utf8))
        }
        defer { server.stop() }

        let error = await strataError {
            _ = try await makeClient(kind.make()).send(
                HTTPRequest(url: server.baseURL),
                ifModifiedSince: ConditionalHeaders(eTag: "abc")
            )
        }

        #expect(error?.code == .unexpectedResponse, "\(String(describing: error))")
    }
}
