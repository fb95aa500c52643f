import Foundation
import Strata
import StrataNetwork
import Testing

/// A `Retry-After` date is the server's: measured from the response's `Date`, so a local clock minutes off the
/// server's neither stretches the wait past a retry plugin's cap (no retry at all) nor shrinks it to nothing (a retry
/// at once of a server that asked for a pause).
struct RetryAfterClockSkewTests {
    static let serverNow = Date(timeIntervalSince1970: 1_700_000_000)

    static func overloaded() -> HTTPResponse {
        HTTPResponse(
            status: 503,
            headers: [
                "Date": HTTPDate.format(serverNow),
                "Retry-After": HTTPDate.format(serverNow.addingTimeInterval(10)),
            ]
        )
    }

    @Test(arguments: [-120.0, 0, 120, 86_400])
    func aRetryAfterDateIsMeasuredFromTheResponsesDate(skew: TimeInterval) throws {
        let localNow = Self.serverNow.addingTimeInterval(skew)
        #expect(Self.overloaded().retryAfter(now: localNow) == .seconds(10))
        let error = try #require(HTTPClient.error(for: Self.overloaded(), request: "GET /", now: localNow))
        #expect(error.httpFailure?.retryAfter == .seconds(10))
    }

    @Test func withoutADateTheLocalClockMeasuresIt() {
        let response = HTTPResponse(
            status: 503,
            headers: ["Retry-After": HTTPDate.format(Self.serverNow.addingTimeInterval(10))]
        )
        #expect(response.retryAfter(now: Self.serverNow) == .seconds(10))
        #expect(response.retryAfter(now: Self.serverNow.addingTimeInterval(4)) == .seconds(6))
    }
}
