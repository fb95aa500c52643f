import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import Testing

/// Network faults against a real server on 127.0.0.1: lies and loops end in typed errors, never a hang.
struct ReliabilityNetworkTests {
    @Test func aTwoGigabyteContentLengthLieIsRefusedBeforeTheBody() async throws {
        // Given a server that announces 2 GiB and sends 10 bytes
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2147483648\r\nConnection: close\r\n\r\n".utf8))
            try write(Data(repeating: 1, count: 10))
        }
        defer { server.stop() }

        // When / Then a client with a 1 MiB limit refuses it, and one without a low limit sees a network error
        let limited = await strataError {
            _ = try await makeClient(maximumResponseSize: 1024 * 1024).send(HTTPRequest(url: server.baseURL))
        }
        #expect(limited?.code == .tooLarge)
        let unlimited = await strataError { _ = try await makeClient().send(HTTPRequest(url: server.baseURL)) }
        #expect(unlimited?.code == .tooLarge || unlimited?.code == .network, "\(String(describing: unlimited))")
    }

    @Test func aRedirectLoopEndsInATypedError() async throws {
        let server = try await LoopbackServer.start([
            ("GET /loop", { _ in ServerReply(status: 302, headers: ["Location": "/loop"]) })
        ])
        defer { Task { await server.stop() } }

        let error = await strataError {
            _ = try await makeClient().send(HTTPRequest(baseURL: server.baseURL, path: "loop"))
        }

        #expect(error != nil)
        #expect(error?.code == .network || error?.code == .httpStatus, "\(String(describing: error))")
        #expect(server.requestCount(path: "/loop") < 100)
    }
}
