import Foundation
import Strata
import StrataNetwork
import Testing

struct CacheControlTests {
    static let cases: [(String, CacheControl)] = [
        ("max-age=60", CacheControl(maxAge: .seconds(60))),
        ("max-age=0, no-cache", CacheControl(maxAge: .zero, noCache: true)),
        ("  MAX-AGE = 30 ,Public", CacheControl(maxAge: .seconds(30), isPublic: true)),
        ("\tmax-age\t=\t20\t,\tno-cache \t", CacheControl(maxAge: .seconds(20), noCache: true)),
        (" , ,max-age=5", CacheControl(maxAge: .seconds(5))),
        ("max-age=\"45\"", CacheControl(maxAge: .seconds(45))),
        ("no-store", CacheControl(noStore: true)),
        ("private, must-revalidate", CacheControl(mustRevalidate: true, isPrivate: true)),
        ("s-maxage=100, max-age=10", CacheControl(maxAge: .seconds(10), sharedMaxAge: .seconds(100))),
        (
            "max-age=600, stale-while-revalidate=30, stale-if-error=86400",
            CacheControl(maxAge: .seconds(600), staleWhileRevalidate: .seconds(30), staleIfError: .seconds(86_400))
        ),
        ("no-cache=\"Set-Cookie, Set-Cookie2\", max-age=5", CacheControl(maxAge: .seconds(5), noCache: true)),
        (",, max-age=7 ,,", CacheControl(maxAge: .seconds(7))),
        ("max-age=-1", CacheControl(maxAge: .zero)),
        ("max-age=abc", CacheControl(maxAge: .zero)),
        ("max-age", CacheControl(maxAge: .zero)),
        ("max-age=99999999999999999999", CacheControl(maxAge: .seconds(2_147_483_648))),
        ("max-age=10, max-age=20", CacheControl(maxAge: .seconds(10))),
        ("", CacheControl()),
    ]

    @Test("Cache-Control parses", arguments: cases)
    func parses(header: String, expected: CacheControl) {
        #expect(CacheControl(parsing: header) == expected)
    }

    /// Read by bytes: a combining mark, a joiner or a variation selector right after a comma is one `Character`
    /// with it, and a split by `Character` ran the directive before into the member after (`no-cache,\u{301}x` one
    /// unknown directive: the response served without revalidation, or stored against `no-store`).
    @Test(arguments: ["\u{301}x", "\u{200D}", "\u{FE0F}", "\u{301}"])
    func aMarkAfterACommaDoesNotHideTheDirectiveBeforeIt(mark: String) {
        #expect(CacheControl(parsing: "max-age=600, no-cache,\(mark)").noCache)
        #expect(CacheControl(parsing: "no-store,\(mark)").noStore)
        #expect(CacheControl(parsing: "private,\(mark), max-age=60").isPrivate)
        #expect(CacheControl(parsing: "private,\(mark), max-age=60").maxAge == .seconds(60))
        #expect(CacheControl(parsing: "max-age=60, \(mark)no-store").maxAge == .seconds(60))
    }

    /// A quote inside a token, or a quoted string never closed (two field lines joined), loses only its own
    /// member: the directives after it, `no-store` among them, are heard.
    @Test(arguments: [
        #"max-age=3600, x-ext=a"b, no-store"#,
        #"foo="bar, no-store"#,
        #"max-age=60, foo="bar, baz, no-store"#,
    ])
    func aStrayQuoteLosesOnlyItsOwnMember(header: String) {
        #expect(CacheControl(parsing: header).noStore)
    }

    /// A quoted string opens after `=` (or at a member's start) and holds its commas, closed or not by a later
    /// field.
    @Test func aQuotedArgumentHoldsItsCommas() {
        let control = CacheControl(parsing: #"no-cache="a, no-store", max-age=5"#)
        #expect(!control.noStore)
        #expect(control.noCache)
        #expect(control.maxAge == .seconds(5))
        #expect(CacheControl(parsing: #"x="a\", no-store", max-age=1"#).maxAge == .seconds(1))
        // Left open, a quote's member is read again from its start with its quotes as characters.
        #expect(CacheControl(parsing: #"a=<"x, no-store"#).noStore)
    }

    @Test func unknownDirectivesAreKept() {
        let control = CacheControl(parsing: "max-age=1, community=\"UCI\", x-flag, immutable")
        #expect(control.maxAge == .seconds(1))
        #expect(control.immutable)
        #expect(control.extensions["community"] == .some("UCI"))
        #expect(control.extensions["x-flag"] == .some(nil))
    }
}

struct FreshnessTests {
    @Test func sharedMaxAgeThenMaxAgeThenExpires() {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        let expires = "Sun, 06 Nov 1994 09:49:37 GMT"
        let both = HTTPResponse(status: 200, headers: ["Cache-Control": "s-maxage=5, max-age=10"])
        // An app's cache is private: `s-maxage` applies to a shared one only, and only when asked for (it was the
        // default, which gave an app the shared lifetime)
        #expect(both.freshnessLifetime() == .seconds(10))
        #expect(both.freshnessLifetime(sharedCache: true) == .seconds(5))
        let maxAge = HTTPResponse(
            status: 200,
            headers: ["Cache-Control": "max-age=10", "Expires": expires, "Date": date]
        )
        #expect(maxAge.freshnessLifetime() == .seconds(10))
        let dated = HTTPResponse(status: 200, headers: ["Expires": expires, "Date": date])
        #expect(dated.freshnessLifetime() == .seconds(3600))
    }

    @Test func invalidExpiresIsAlreadyStale() {
        let response = HTTPResponse(status: 200, headers: ["Expires": "0", "Date": "Sun, 06 Nov 1994 08:49:37 GMT"])
        #expect(response.expires == .distantPast)
        #expect(response.freshnessLifetime() == .zero)
    }

    @Test func noExplicitFreshnessIsNil() {
        #expect(HTTPResponse(status: 200, headers: ["ETag": "\"x\""]).freshnessLifetime() == nil)
    }

    @Test func cachingHeadersAreParsed() {
        let response = HTTPResponse(
            status: 200,
            headers: [
                "etag": "W/\"abc\"", "last-modified": "Sun, 06 Nov 1994 08:49:37 GMT", "AGE": "12",
                "date": "Sunday, 06-Nov-94 08:49:37 GMT",
            ]
        )
        #expect(response.eTag == "W/\"abc\"")
        #expect(response.lastModified == Date(timeIntervalSince1970: 784_111_777))
        #expect(response.date == Date(timeIntervalSince1970: 784_111_777))
        #expect(response.age == .seconds(12))
    }
}

struct HTTPDateTests {
    @Test(
        "The three HTTP date forms parse",
        arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"]
    )
    func parses(text: String) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: 784_111_777))
    }

    /// An RFC 850 two-digit year of 70–99 is in the 1900s, of 00–69 in the 2000s: `Thu, 01-Jan-70 00:00:01 GMT`, the
    /// "already expired" many servers send as `Expires`, is 1970. (A window of 50 years around the current year,
    /// tried, read it as 2070, and such a response was fresh for decades.)
    @Test(arguments: [("70", 1970), ("99", 1999), ("00", 2000), ("69", 2069)])
    func readsATwoDigitYearAsBrowsersDo(short: String, year: Int) {
        let parsed = HTTPDate.parse("Thursday, 01-Jan-\(short) 00:00:01 GMT")

        #expect(parsed == HTTPDate.parse("Thu, 01 Jan \(year) 00:00:01 GMT"))
        #expect(parsed != nil)
    }

    @Test(arguments: ["", "0", "yesterday", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT"])
    func rejects(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func formatsIMFFixdate() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(HTTPDate.parse(HTTPDate.format(now)) == now)
    }
}

struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static let cases: [(String, Duration?)] = [
        ("120", .seconds(120)),
        (" 0 ", .zero),
        (HTTPDate.format(now.addingTimeInterval(90)), .seconds(90)),
        (HTTPDate.format(now.addingTimeInterval(-90)), .zero),
        ("-5", nil),
        ("soon", nil),
    ]

    @Test("Retry-After parses seconds and dates", arguments: cases)
    func parses(value: String, expected: Duration?) {
        #expect(RetryAfter.parse(value, now: Self.now) == expected)
    }
}
