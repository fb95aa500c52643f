import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataNetwork

/// No header value, however absurd, traps a parser: huge years, digits that overflow `Int`, signs, control
/// bytes and 64 KiB values give a sensible value or `nil`.
struct HostileHeaderParsingTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let huge = String(repeating: "9", count: 64 * 1024)

    /// Dates a server can send that are not HTTP dates: each is `nil`, and none traps.
    static let absurdDates: [String] = [
        "Sun, 06 Nov 1000000000000 08:49:37 GMT",
        "Sunday, 06-Nov-1000000000000 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1000000000000",
        "Sun, 06 Nov 99999999999999999999999999999 08:49:37 GMT",
        "Sun, 06 Nov 10000 08:49:37 GMT",
        "Sun, 06 Nov -1994 08:49:37 GMT",
        "Sun, -6 Nov 1994 08:49:37 GMT",
        "Sun, 9223372036854775807 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 9223372036854775807:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:99999999999999999999 GMT",
        "Sun, 06 Nov 1994 08:49 GMT",
        "Sun, 06 Nov 1994 08:49:37:00 GMT",
        "Sun, 06 Nov 1994 08::37 GMT",
        "Sun, 06 Nov 1994 08:49:37 EST",
        "Sun, 06 Nov 19\u{0}94 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT\u{0}",
        "Sun, 06 Nov 1994 08:49:37\r\nGMT",
        "Sun, ٠٦ Nov ١٩٩٤ 08:49:37 GMT",
        "Sun, 06 Nov +994 08:49:37 GMT",
        "Sun Nov  6 08:49:37 +1994",
        ",,,,,",
        "-----",
        ":",
        "Sun, 06 Nov 1994 08:49:37 GMT" + String(repeating: " ", count: 64 * 1024),
        "Sun, 06 Nov " + huge + " 08:49:37 GMT",
        huge,
        String(repeating: "\u{0}", count: 64 * 1024),
    ]

    @Test("Absurd dates are not dates", arguments: absurdDates)
    func absurdDatesAreNil(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    /// The edges of the grammar still parse: the years 0000 and 9999, RFC 850 with four digits, tabs, a leap second.
    static let edgeDates: [(String, TimeInterval)] = [
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
        ("Sat, 01 Jan 0000 00:00:00 GMT", -62_167_219_200),
        ("Sunday, 06-Nov-1994 08:49:37 GMT", 784_111_777),
        ("\tSun,\t06 Nov 1994 08:49:37 gmt ", 784_111_777),
        ("Sun, 6 Nov 1994 8:49:37 GMT", 784_111_777),
        ("Wed, 31 Dec 1969 23:59:60 GMT", 0),
    ]

    @Test("The edges of the date grammar parse", arguments: edgeDates)
    func edgeDatesParse(text: String, seconds: TimeInterval) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(
        "Formatting clamps to the years 0000–9999",
        arguments: [
            (1e300, "Fri, 31 Dec 9999 23:59:59 GMT"),
            (Double.infinity, "Fri, 31 Dec 9999 23:59:59 GMT"),
            (-1e300, "Sat, 01 Jan 0000 00:00:00 GMT"),
            (-Double.infinity, "Sat, 01 Jan 0000 00:00:00 GMT"),
            (Double.nan, "Sat, 01 Jan 0000 00:00:00 GMT"),
            (-62_135_596_800, "Mon, 01 Jan 0001 00:00:00 GMT"),
        ]
    )
    func formatClamps(seconds: Double, expected: String) {
        let text = HTTPDate.format(Date(timeIntervalSince1970: seconds))
        #expect(text == expected)
        #expect(HTTPDate.parse(text) != nil)
    }

    /// Delta-seconds saturate at 2³¹ (RFC 9111, section 1.2.2); anything but digits is not a number.
    static let deltaSeconds: [(String, Int64?)] = [
        ("0", 0),
        ("2147483647", 2_147_483_647),
        ("2147483649", 2_147_483_648),
        ("1000000000000000000000000000000", 2_147_483_648),
        ("00000000000000000000000000000000000000012", 12),
        (huge, 2_147_483_648),
        ("", nil),
        ("-1", nil),
        ("+1", nil),
        ("1.5", nil),
        ("1e9", nil),
        ("1\u{0}", nil),
        ("١٢", nil),
        ("0x10", nil),
    ]

    @Test("Delta-seconds saturate", arguments: deltaSeconds)
    func deltaSecondsSaturate(text: String, expected: Int64?) {
        #expect(DeltaSeconds.parse(text) == expected)
        let age = HTTPResponse(status: 200, headers: ["Age": text]).age
        #expect(age == expected.map { .seconds($0) })
        let control = CacheControl(parsing: "max-age=\(text), stale-if-error=\(text)")
        #expect(control.maxAge == .seconds(expected ?? 0))
        #expect(control.staleIfError == .seconds(expected ?? 0))
    }

    /// An `Age` list (two lines, or one line with commas) counts its first member (RFC 9111, section 5.1): the
    /// response is as old as it says, not new (the list was not a number, so its age was taken as zero and a
    /// response 3,000 s old was fresh for the whole of its `max-age`).
    @Test func anAgeListCountsItsFirstMember() {
        #expect(HTTPResponse(status: 200, headers: ["Age": "3000, 3000"]).age == .seconds(3_000))
        #expect(HTTPResponse(status: 200, headers: ["Age": " 30 ,x"]).age == .seconds(30))
        #expect(HTTPResponse(status: 200, headers: ["Age": "x, 30"]).age == nil)
        let now = Date(timeIntervalSince1970: 1_000_000)
        let freshness = HTTPFreshness(
            response: HTTPResponse(status: 200, headers: ["Cache-Control": "max-age=3600", "Age": "3000, 3000"]),
            requestTime: now,
            responseTime: now
        )
        #expect(freshness.remainingLifetime == .seconds(600))
    }

    static let retryAfters: [(String, Duration?)] = [
        ("1000000000000000000000000000000", .seconds(2_147_483_648)),
        (huge, .seconds(2_147_483_648)),
        ("Fri, 31 Dec 9999 23:59:59 GMT", .seconds(2_147_483_648)),
        ("Sun, 06 Nov 1000000000000 08:49:37 GMT", nil),
        ("Sat, 01 Jan 0000 00:00:00 GMT", .zero),
        ("-120", nil),
        ("12\u{0}", nil),
        (String(repeating: "\u{0}", count: 64 * 1024), nil),
    ]

    @Test("Retry-After saturates or is nil", arguments: retryAfters)
    func retryAfterIsTotal(text: String, expected: Duration?) {
        #expect(RetryAfter.parse(text, now: Self.now) == expected)
        #expect(HTTPResponse(status: 503, headers: ["Retry-After": text]).retryAfter(now: Self.now) == expected)
    }

    /// Freshness from dates far apart, or from a response date at the edge of `Double`, saturates.
    @Test func freshnessFromExtremeDatesSaturates() {
        let far = HTTPResponse(
            status: 200,
            headers: ["Expires": "Fri, 31 Dec 9999 23:59:59 GMT", "Date": "Sat, 01 Jan 0000 00:00:00 GMT"]
        )
        #expect(far.freshnessLifetime() == .seconds(2_147_483_648))
        let undated = HTTPResponse(status: 200, headers: ["Expires": "Fri, 31 Dec 9999 23:59:59 GMT"])
        let edge = Date(timeIntervalSince1970: -Double.greatestFiniteMagnitude)
        #expect(undated.freshnessLifetime(responseDate: edge) == .seconds(2_147_483_648))
        #expect(undated.freshnessLifetime(responseDate: Date(timeIntervalSince1970: .nan)) == .zero)
        let absurd = HTTPResponse(status: 200, headers: ["Expires": "Sun, 06 Nov 1000000000000 08:49:37 GMT"])
        #expect(absurd.expires == .distantPast)
        #expect(absurd.freshnessLifetime(responseDate: Self.now) == .zero)
    }

    /// Cache-Control with 64 KiB arguments, thousands of directives, unbalanced quotes and control bytes.
    @Test(
        "Hostile Cache-Control values parse",
        arguments: [
            "max-age=" + huge,
            "max-age=\"" + huge,
            String(repeating: "no-cache,", count: 8 * 1024),
            String(repeating: "x=\"\\", count: 16 * 1024),
            "max-age=\u{0}1, \r\n no-store",
            String(repeating: "=", count: 64 * 1024),
        ]
    )
    func hostileCacheControlParses(header: String) {
        let control = CacheControl(parsing: header)
        #expect(control.maxAge == nil || control.maxAge.map { $0 >= .zero && $0 <= .seconds(2_147_483_648) } == true)
    }
}

/// Absurd caching headers from a real server reach the parsers through the client: no crash, and each value
/// is read as the RFCs ask (an invalid `Expires` is already expired, numbers saturate at 2³¹ seconds).
struct HostileHeaderServerTests {
    static let hugeYear = "Sun, 06 Nov 1000000000000 08:49:37 GMT"

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func absurdCachingHeadersFromAServerAreReadSafely(transport kind: TransportUnderTest) async throws {
        let head =
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n"
            + "Expires: \(Self.hugeYear)\r\nDate: \(Self.hugeYear)\r\nLast-Modified: \(Self.hugeYear)\r\n"
            + "Age: 1000000000000000000000000000000\r\n"
            + "Cache-Control: max-age=1000000000000000000000000000000, stale-if-error=-5\r\n\r\nok"
        let server = try RawServer.start { write in try write(Data(head.utf8)) }
        defer { server.stop() }

        let response = try await makeClient(kind.make()).send(HTTPRequest(url: server.baseURL))

        #expect(response.body == Data("ok".utf8))
        #expect(response.expires == .distantPast)
        #expect(response.date == nil)
        #expect(response.lastModified == nil)
        #expect(response.age == .seconds(2_147_483_648))
        #expect(response.cacheControl.maxAge == .seconds(2_147_483_648))
        #expect(response.cacheControl.staleIfError == .zero)
        #expect(response.freshnessLifetime(responseDate: Date()) == .seconds(2_147_483_648))
    }

    @Test(
        "Retry-After from a server saturates or is ignored",
        .timeLimit(.minutes(1)),
        arguments: TransportUnderTest.all,
        [
            (hugeYear, nil),
            ("1000000000000000000000000000000", Duration.seconds(2_147_483_648)),
            ("Fri, 31 Dec 9999 23:59:59 GMT", Duration.seconds(2_147_483_648)),
        ]
    )
    func absurdRetryAfterFromAServer(
        transport kind: TransportUnderTest,
        retryAfter: (value: String, expected: Duration?)
    ) async throws {
        let (value, expected) = retryAfter
        let head =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\nRetry-After: \(value)\r\n\r\n"
        let server = try RawServer.start { write in try write(Data(head.utf8)) }
        defer { server.stop() }

        let error = await strataError { _ = try await makeClient(kind.make()).send(HTTPRequest(url: server.baseURL)) }

        #expect(error?.code == .unexpectedResponse)
        #expect(error?.httpFailure?.status == 503)
        #expect(error?.isRetryable == true)
        #expect(error?.suggestedRetryDelay == expected)
    }
}

/// A `Content-Length` that is not a length is parsed by libcurl and Foundation, not by Strata: whatever they
/// make of it, the client answers with a response or a typed error, and never holds more than the limit.
struct HostileContentLengthTests {
    @Test(
        "An absurd Content-Length ends in a response or a typed error",
        .timeLimit(.minutes(1)),
        // Not 9223372036854775807, nor any value within 512 of it: FoundationNetworking's header callback
        // converts libcurl's length (a Double, which rounds it to 2⁶³) to Int64 and traps, before any
        // delegate is asked. A transport other than URLSession is the only defence on Linux.
        arguments: TransportUnderTest.all,
        ["99999999999999999999999", "9223372036854774784", "-5", "1e3", "2, 3", "\u{1}", "0x10"]
    )
    func absurdContentLength(transport kind: TransportUnderTest, value: String) async throws {
        let server = try RawServer.start { write in
            try write(Data("HTTP/1.1 200 OK\r\nContent-Length: \(value)\r\nConnection: close\r\n\r\nok".utf8))
        }
        defer { server.stop() }
        let transport = kind.make()
        let client = HTTPClient(
            transport: transport,
            configuration: .init(maximumResponseSize: 1024, timeout: .seconds(5))
        )

        let error = await strataError { _ = try await client.send(HTTPRequest(url: server.baseURL)) }

        #expect(error == nil || [.network, .tooLarge].contains(error?.code), "\(String(describing: error))")
        #expect(transport.peakBodyBytes <= 1024)
    }
}
