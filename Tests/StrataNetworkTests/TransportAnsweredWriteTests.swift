import Foundation
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// A request a server answered may have taken effect, whatever ends it after: a body the client refuses, a
/// redirect that cannot be followed. Either transport says so (``Strata/StrataError/mayHaveTakenEffect``), so that a
/// cache drops its copy of a value main may now hold otherwise.
struct TransportAnsweredWriteTests {
    /// Before, the AsyncHTTPClient transport refused the body before it recorded the head, and a `PUT` whose `200`
    /// came with too long a body was taken as never sent.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aWriteWhoseAnswerIsOverTheLimitMayHaveTakenEffect(transport kind: TransportUnderTest) async throws {
        // Given a server that answers with a body of 10 MB
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\nConnection: close\r\n\r\n".utf8))
            try write(Data(repeating: 1, count: 4096))
        }
        defer { server.stop() }
        var request = HTTPRequest(.put, baseURL: server.baseURL)
        request.body = Data("value".utf8)

        // When a write takes at most 1 KiB of answer
        let error = await strataError { _ = try await kind.make().send(request, maximumBodySize: 1024) }

        // Then it fails, and may have taken effect
        #expect(error?.code == .tooLarge, "\(String(describing: error))")
        #expect(error?.mayHaveTakenEffect == true)
    }

    /// Before, neither transport kept the status of a redirect it followed: a `POST` the server answered `302`
    /// (post, redirect, get) whose redirect then could not connect was taken as never sent.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aWriteAnsweredWithARedirectThatFailsMayHaveTakenEffect(transport kind: TransportUnderTest) async throws {
        // Given a server that answers a write with a redirect to a port nothing listens on
        let refusing = try RefusingPort()
        let location = refusing.baseURL.appendingPathComponent("done").absoluteString
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n".utf8))
        }
        defer { server.stop() }
        var request = HTTPRequest(.post, baseURL: server.baseURL)
        request.body = Data("value".utf8)

        // When the write is sent
        let error = await strataError { _ = try await kind.make().send(request, maximumBodySize: 1024) }

        // Then it fails on the redirect, and may have taken effect
        #expect(error?.code == .network, "\(String(describing: error))")
        #expect(server.connectionCount == 1)
        #expect(error?.mayHaveTakenEffect == true)
    }

    /// A request refused before it reached any server was not carried out.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aWriteNoServerAnsweredHasNoEffect(transport kind: TransportUnderTest) async throws {
        let refusing = try RefusingPort()
        var request = HTTPRequest(.post, baseURL: refusing.baseURL)
        request.body = Data("value".utf8)

        let error = await strataError { _ = try await kind.make().send(request, maximumBodySize: 1024) }

        #expect(error?.code == .network, "\(String(describing: error))")
        #expect(error?.mayHaveTakenEffect == false)
    }
}
