import Foundation
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// A timeout of zero (read as "no timeout" by some libraries) or below is refused before anything is sent: it
/// failed every request at once as a retryable timeout, which a retry plugin retried and an offline repository queued
/// as "main unreachable".
struct TimeoutArgumentTests {
    static let url = URL(string: "http://127.0.0.1:9/item")!

    @Test(arguments: [Duration.zero, .seconds(-1)])
    func aRequestWithATimeoutOfNothingIsRefused(timeout: Duration) async throws {
        var idle = HTTPRequest(url: Self.url)
        idle.timeout = timeout
        var total = HTTPRequest(url: Self.url)
        total.totalTimeout = timeout
        for request in [idle, total] {
            let error = await #expect(throws: StrataError.self) { try await makeClient().send(request) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.isRetryable == false)
        }
    }

    @Test(arguments: [Duration.zero, .seconds(-1)])
    func aClientWithATimeoutOfNothingIsRefused(timeout: Duration) async throws {
        for configuration in [
            HTTPClient.Configuration(timeout: timeout), HTTPClient.Configuration(totalTimeout: timeout),
            HTTPClient.Configuration(maximumResponseSize: -1),
        ] {
            let client = HTTPClient(configuration: configuration)
            let error = await #expect(throws: StrataError.self) { try await client.send(HTTPRequest(url: Self.url)) }
            #expect(error?.code == .invalidArgument)
        }
    }
}
