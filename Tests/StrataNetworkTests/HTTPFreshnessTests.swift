import Foundation
import Strata
import StrataNetwork
import Testing

/// The one freshness computation (RFC 9111 section 4.2, RFC 5861), over a table of header combinations.
struct HTTPFreshnessTests {
    static let received = Date(timeIntervalSince1970: 1_700_000_000)

    /// The freshness of `response` to `request`, received at once at ``received``.
    static func freshness(
        of response: HTTPResponse,
        to request: HTTPRequest,
        _ policy: HTTPFreshness.Policy
    ) -> HTTPFreshness {
        HTTPFreshness(
            response: response,
            requestTime: received,
            responseTime: received,
            policy: policy,
            request: request
        )
    }

    /// An HTTP date `offset` seconds from ``received``.
    static func date(_ offset: TimeInterval) -> String { HTTPDate.format(received.addingTimeInterval(offset)) }

    /// A row: what it shows, the headers, the policy, and the expected lifetime, remaining lifetime (at receipt)
    /// and whether the response may be stored.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var status = 200
        var headers: [String: String]
        var policy = HTTPFreshness.Policy.privateCache
        var requestDelay: TimeInterval = 0
        var lifetime: Duration?
        var remaining: Duration?
        var storable = true

        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "nothing: no lifetime", headers: [:]),
        Row(name: "max-age", headers: ["Cache-Control": "max-age=60"], lifetime: .seconds(60), remaining: .seconds(60)),
        Row(
            name: "a private cache ignores s-maxage",
            headers: ["Cache-Control": "s-maxage=600, max-age=60"],
            lifetime: .seconds(60),
            remaining: .seconds(60)
        ),
        Row(
            name: "a shared cache takes s-maxage first",
            headers: ["Cache-Control": "s-maxage=600, max-age=60"],
            policy: .sharedCache,
            lifetime: .seconds(600),
            remaining: .seconds(600)
        ),
        Row(
            name: "max-age wins over Expires",
            headers: ["Cache-Control": "max-age=60", "Date": date(0), "Expires": date(3_600)],
            lifetime: .seconds(60),
            remaining: .seconds(60)
        ),
        Row(
            name: "Expires − Date",
            headers: ["Date": date(-10), "Expires": date(290)],
            lifetime: .seconds(300),
            remaining: .seconds(290)
        ),
        Row(
            name: "Expires without Date counts from receipt",
            headers: ["Expires": date(120)],
            lifetime: .seconds(120),
            remaining: .seconds(120)
        ),
        Row(
            name: "an invalid Expires is already expired",
            headers: ["Expires": "0"],
            lifetime: .zero,
            remaining: .zero
        ),
        Row(
            name: "Age is subtracted",
            headers: ["Cache-Control": "max-age=60", "Age": "45"],
            lifetime: .seconds(60),
            remaining: .seconds(15)
        ),
        Row(
            name: "the response delay is added to Age",
            headers: ["Cache-Control": "max-age=60", "Age": "10"],
            requestDelay: 5,
            lifetime: .seconds(60),
            remaining: .seconds(45)
        ),
        Row(
            name: "the apparent age counts when it is larger",
            headers: ["Cache-Control": "max-age=60", "Date": date(-50), "Age": "10"],
            lifetime: .seconds(60),
            remaining: .seconds(10)
        ),
        Row(
            name: "an Age beyond the lifetime leaves zero",
            headers: ["Cache-Control": "max-age=60", "Age": "600"],
            lifetime: .seconds(60),
            remaining: .zero
        ),
        Row(
            name: "no-cache is stale at once",
            headers: ["Cache-Control": "no-cache, max-age=60"],
            lifetime: .seconds(60),
            remaining: .zero
        ),
        Row(name: "no-cache without a lifetime is stale too", headers: ["Cache-Control": "no-cache"], remaining: .zero),
        Row(
            name: "no-store is not storable",
            headers: ["Cache-Control": "no-store, max-age=60"],
            lifetime: .seconds(60),
            remaining: .seconds(60),
            storable: false
        ),
        Row(
            name: "a private cache stores private",
            headers: ["Cache-Control": "private, max-age=60"],
            lifetime: .seconds(60),
            remaining: .seconds(60)
        ),
        Row(
            name: "a shared cache does not store private",
            headers: ["Cache-Control": "private, max-age=60"],
            policy: .sharedCache,
            lifetime: .seconds(60),
            remaining: .seconds(60),
            storable: false
        ),
        Row(
            name: "heuristics are off by default",
            headers: ["Date": date(0), "Last-Modified": date(-1_000)]
        ),
        Row(
            name: "heuristics give 10% of Date − Last-Modified",
            headers: ["Date": date(0), "Last-Modified": date(-1_000)],
            policy: HTTPFreshness.Policy(usesHeuristics: true),
            lifetime: .seconds(100),
            remaining: .seconds(100)
        ),
        Row(
            name: "absurd values saturate at 2³¹ s",
            headers: ["Cache-Control": "max-age=99999999999999999999999", "Age": "99999999999999999999"],
            lifetime: .seconds(2_147_483_648),
            remaining: .zero
        ),
        Row(
            name: "an Expires in the year 9999 saturates",
            headers: ["Date": date(0), "Expires": "Fri, 31 Dec 9999 23:59:59 GMT"],
            lifetime: .seconds(2_147_483_648),
            remaining: .seconds(2_147_483_648)
        ),
        // Section 3: what may be stored.
        Row(name: "Vary: * is not storable", headers: ["Vary": "Accept, *"], storable: false),
        Row(name: "Vary on a field is storable", headers: ["Vary": "Accept-Encoding"]),
        Row(name: "a 202 without freshness is not storable", status: 202, headers: [:], storable: false),
        Row(name: "a 201 without freshness is not storable", status: 201, headers: [:], storable: false),
        Row(name: "a 206 is not storable (ranges are not combined)", status: 206, headers: [:], storable: false),
        Row(
            name: "a 202 with max-age is storable",
            status: 202,
            headers: ["Cache-Control": "max-age=60"],
            lifetime: .seconds(60),
            remaining: .seconds(60)
        ),
        Row(
            name: "a 202 with Expires is storable",
            status: 202,
            headers: ["Expires": date(30)],
            lifetime: .seconds(30),
            remaining: .seconds(30)
        ),
        Row(name: "a public 202 is storable", status: 202, headers: ["Cache-Control": "public"]),
        Row(name: "a private 202 is storable by a private cache", status: 202, headers: ["Cache-Control": "private"]),
        Row(
            name: "a private 202 is not storable by a shared cache",
            status: 202,
            headers: ["Cache-Control": "private"],
            policy: .sharedCache,
            storable: false
        ),
        Row(
            name: "a heuristic lifetime does not make a 202 storable",
            status: 202,
            headers: ["Date": date(0), "Last-Modified": date(-1_000)],
            policy: HTTPFreshness.Policy(usesHeuristics: true),
            lifetime: .seconds(100),
            remaining: .seconds(100),
            storable: false
        ),
        Row(name: "a 204 without freshness is storable", status: 204, headers: [:]),
        Row(
            name: "a 304 is judged by its headers alone",
            status: 304,
            headers: ["Cache-Control": "max-age=60"],
            lifetime: .seconds(60),
            remaining: .seconds(60)
        ),
        Row(name: "a bare 304 is storable", status: 304, headers: [:]),
    ]

    @Test("Freshness rules", arguments: rows)
    func freshness(row: Row) {
        let response = HTTPResponse(status: row.status, headers: HTTPHeaders(row.headers))
        let freshness = HTTPFreshness(
            response: response,
            requestTime: Self.received.addingTimeInterval(-row.requestDelay),
            responseTime: Self.received,
            policy: row.policy
        )

        #expect(freshness.lifetime == row.lifetime)
        #expect(freshness.remainingLifetime == row.remaining)
        #expect(freshness.isStorable == row.storable)
        #expect(freshness.expiresAt == row.remaining.map { Self.received.addingTimeInterval($0.timeInterval) })
    }

    @Test func freshUntilTheLifetimeIsUsedUpThenStale() {
        let response = HTTPResponse(status: 200, headers: ["Cache-Control": "max-age=60", "Age": "20"])
        let freshness = HTTPFreshness(response: response, requestTime: Self.received, responseTime: Self.received)

        #expect(freshness.age(at: Self.received) == .seconds(20))
        #expect(freshness.isFresh(at: Self.received.addingTimeInterval(39)))
        #expect(freshness.age(at: Self.received.addingTimeInterval(40)) == .seconds(60))
        #expect(!freshness.isFresh(at: Self.received.addingTimeInterval(40)))
    }

    @Test func staleWindowsAreParsedAndExposed() {
        let headers: HTTPHeaders = ["Cache-Control": "max-age=60, stale-while-revalidate=30, stale-if-error=600"]
        let freshness = HTTPFreshness(
            response: HTTPResponse(status: 200, headers: headers),
            requestTime: Self.received,
            responseTime: Self.received
        )

        #expect(freshness.staleWhileRevalidate == .seconds(30))
        #expect(freshness.staleIfError == .seconds(600))
        #expect(freshness.staleWhileRevalidateUntil == Self.received.addingTimeInterval(90))
        #expect(freshness.staleIfErrorUntil == Self.received.addingTimeInterval(660))
        #expect(!freshness.forbidsServingStale)
    }

    /// RFC 5861 bounds how stale a response may be served: one already stale when it was received (its age past its
    /// lifetime) has spent that much of its windows, and one staler than a window has none of it left.
    @Test(arguments: [("100", 260, 560), ("1000", 0, 0)])
    func aResponseStaleOnArrivalHasSpentThatMuchOfItsWindows(age: String, revalidate: Int, ifError: Int) {
        let headers: HTTPHeaders = [
            "Cache-Control": "max-age=60, stale-while-revalidate=300, stale-if-error=600", "Age": age,
        ]
        let freshness = HTTPFreshness(
            response: HTTPResponse(status: 200, headers: headers),
            requestTime: Self.received,
            responseTime: Self.received
        )

        #expect(freshness.expiresAt == Self.received)
        #expect(freshness.staleWhileRevalidate == .seconds(revalidate))
        #expect(freshness.staleIfError == .seconds(ifError))
        #expect(freshness.staleIfErrorUntil == Self.received.addingTimeInterval(TimeInterval(ifError)))
    }

    @Test func mustRevalidateForbidsTheStaleWindows() {
        let headers: HTTPHeaders = ["Cache-Control": "max-age=60, must-revalidate, stale-if-error=600"]
        let freshness = HTTPFreshness(
            response: HTTPResponse(status: 200, headers: headers),
            requestTime: Self.received,
            responseTime: Self.received
        )

        #expect(freshness.forbidsServingStale)
        #expect(freshness.staleIfError == .seconds(600))
        #expect(freshness.staleIfErrorUntil == nil)
    }

    /// In a shared cache `s-maxage` implies `proxy-revalidate` (RFC 9111, section 5.2.2.10): no stale window
    /// applies; a private cache, which ignores `s-maxage`, keeps them.
    @Test func sMaxAgeForbidsServingStaleInASharedCacheOnly() {
        let headers: HTTPHeaders = ["Cache-Control": "s-maxage=60, stale-while-revalidate=30, stale-if-error=600"]
        let response = HTTPResponse(status: 200, headers: headers)
        let shared = HTTPFreshness(
            response: response,
            requestTime: Self.received,
            responseTime: Self.received,
            policy: .sharedCache
        )
        let own = HTTPFreshness(response: response, requestTime: Self.received, responseTime: Self.received)

        #expect(shared.forbidsServingStale)
        #expect(shared.staleWhileRevalidateUntil == nil)
        #expect(shared.staleIfErrorUntil == nil)
        #expect(!own.forbidsServingStale)
    }

    @Test func cacheControlSplitOverTwoFieldLinesIsReadWhole() {
        var headers = HTTPHeaders()
        headers.add("max-age=60", for: "Cache-Control")
        headers.add("no-cache", for: "cache-control")
        let freshness = HTTPFreshness(
            response: HTTPResponse(status: 200, headers: headers),
            requestTime: Self.received,
            responseTime: Self.received
        )

        #expect(freshness.lifetime == .seconds(60))
        #expect(freshness.requiresRevalidation)
        #expect(freshness.remainingLifetime == .zero)
    }

    /// Before, a shared cache stored the answer to one user's `Authorization` under a key without the user, and
    /// served it to the next (RFC 9111, section 3.5).
    @Test(arguments: [
        ("max-age=60", false),
        ("public, max-age=60", true),
        ("s-maxage=60", true),
        ("must-revalidate, max-age=60", true),
    ])
    func aSharedCacheStoresAnAnswerToCredentialsOnlyWhenItSaysSo(cacheControl: String, storable: Bool) throws {
        var request = HTTPRequest(url: try #require(URL(string: "https://api.example/me")))
        request.headers["Authorization"] = "Bearer ann"
        let response = HTTPResponse(status: 200, headers: ["Cache-Control": cacheControl])
        func freshness(_ policy: HTTPFreshness.Policy, _ request: HTTPRequest) -> HTTPFreshness {
            Self.freshness(of: response, to: request, policy)
        }

        #expect(freshness(.sharedCache, request).isStorable == storable)
        #expect(freshness(.privateCache, request).isStorable)
        #expect(freshness(.sharedCache, HTTPRequest(url: request.baseURL)).isStorable)
    }

    /// Before, only `Vary: *` kept a response out: a gateway (a shared cache keyed by the URL) stored a `Vary: Cookie`
    /// answer to one user and served it to the next. A private cache, one client sending the same fields, stores it.
    @Test(arguments: [
        ("Cookie", false), ("Accept-Language, Accept-Encoding", false), ("accept-encoding", true), ("*", false),
    ])
    func aSharedCacheDoesNotStoreAnAnswerThatVariesOnTheRequestsFields(vary: String, sharedStores: Bool) throws {
        let request = HTTPRequest(url: try #require(URL(string: "https://api.example/me")))
        let response = HTTPResponse(status: 200, headers: ["Cache-Control": "max-age=60", "Vary": vary])
        #expect(Self.freshness(of: response, to: request, .sharedCache).isStorable == sharedStores)
        #expect(Self.freshness(of: response, to: request, .privateCache).isStorable == (vary != "*"))
    }

    /// Before, only the `Authorization` field counted as credentials: a URL's user and password, which the transport
    /// sends as `Authorization: Basic`, made an answer a shared cache stored for everyone. Then a user that did not
    /// decode as UTF-8 (`a%FFb`, which Foundation reads as none) still counted as none. An empty user (`@`) counts
    /// too: it goes as `Basic Og==`.
    @Test(arguments: [
        "https://ann:secret@api.example/me", "https://a%FFb:pw@api.example/me", "https://a%FFb@api.example/me",
        "https://ann:p%FF@api.example/me", "https://:pw@api.example/me", "https://@api.example/me",
    ])
    func aSharedCacheCountsAUserInTheURLAsCredentials(url text: String) throws {
        let request = HTTPRequest(url: try #require(URL(string: text)))
        let response = HTTPResponse(status: 200, headers: ["Cache-Control": "max-age=60"])

        #expect(!Self.freshness(of: response, to: request, .sharedCache).isStorable)
    }
}
