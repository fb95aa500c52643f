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
        // Given a server whose first connections answer a redirect and then hold its body back for good
        let stalled = 9
        let accepted = Locked(0)
        let release = DispatchSemaphore(value: 0)
        let server = try RawServer.start { write in
            let number = accepted.withLock { count -> Int in
                count += 1
                return count
            }
            guard number <= stalled else {
                return try write(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8))
            }
            try write(Data("HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 10\r\n\r\n".utf8))
            release.wait()
        }
        defer {
            for _ in 0..<stalled { release.signal() }
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
