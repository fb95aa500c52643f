import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// A redirect a transport cannot follow is the answer.
struct UnfollowableRedirectTests {
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aRedirectWithoutALocationIsItsStatus(transport kind: TransportUnderTest) async throws {
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 302 Found\r\nContent-Length: 5\r\n\r\nmoved".utf8))
        }
        defer { server.stop() }
        let client = HTTPClient(transport: kind.make(), configuration: .init(timeout: .seconds(20)))

        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }

        #expect(error?.code == .unexpectedResponse, "\(String(describing: error))")
        #expect(error?.httpFailure?.status == 302)
        #expect(error?.isRetryable == false)
    }
}
