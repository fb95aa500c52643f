import Dispatch
import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// A redirect whose body never comes costs its request, never its connection.
struct RedirectConnectionTests {
    /// Before, AsyncHTTPClient followed redirects itself, and a request that failed while it read a redirect's body (its
    /// idle timeout, its cancellation) left that connection leased for as long as the server kept it open: eight
    /// such redirects filled the client's pool for the host, and every later request to it waited until its own
    /// deadline.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func redirectsWhoseBodiesStallLeaveTheHostReachable(transport kind: TransportUnderTest) async throws {
        // Given a server whose `/start` answers a redirect and then holds its body back for good (by path: a request
        // whose idle timeout passes before it reaches the server, on a loaded machine, takes no connection)
        let stalled = 9
        let held = Locked(0)
        let release = DispatchSemaphore(value: 0)
        let server = try RawServer.start { head, write in
            guard head.hasPrefix("GET /start ") else {
                return try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8))
            }
            held.withLock { $0 += 1 }
            try write(Data("HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 10\r\n\r\n".utf8))
            release.wait()
        }
        defer {
            // Every held answer goes on, a late one included (a request that reached the server after its timeout).
            for _ in 0..<(held.withLock { $0 } + stalled) { release.signal() }
            server.stop()
        }
        let transport = kind.make()

        // When more such requests than a client keeps connections for one host end at their idle timeout
        for _ in 0..<stalled {
            var request = HTTPRequest(url: server.baseURL.appendingPathComponent("start"))
            request.timeout = .milliseconds(300)
            let error = await strataError { _ = try await transport.send(request, maximumBodySize: 1024) }
            #expect(error?.code == .network, "\(String(describing: error))")
        }

        // Then the next request to the host is answered: none of them kept its connection
        var request = HTTPRequest(url: server.baseURL.appendingPathComponent("after"))
        request.timeout = .seconds(5)
        let response = try await transport.send(request, maximumBodySize: 1024)
        #expect(response.status == 200)
        #expect(response.body == Data("ok".utf8))
    }
}
