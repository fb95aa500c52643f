import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

struct RequestTests {
    let base = URL(string: "http://127.0.0.1:8080/api/")!

    @Test func urlJoinsBasePathAndQuery() throws {
        let request = HTTPRequest(
            .get,
            baseURL: base,
            path: "/users/42",
            queryItems: [URLQueryItem(name: "q", value: "a b&c")]
        )
        #expect(try request.url().absoluteString == "http://127.0.0.1:8080/api/users/42?q=a%20b%26c")
        #expect(request.cacheKey == "http://127.0.0.1:8080/api/users/42?q=a%20b%26c")
        var custom = request
        custom.cacheKey = "user-42"
        #expect(custom.cacheKey == "user-42")
    }

    /// A query added to a URL that has one keeps the URL's as it is, and encodes its own `+` (which a server reads as a
    /// space): a signed link's `%2B` went out as `+` (its signature then refused), and a time zone's `+01:00` arrived
    /// as ` 01:00`.
    @Test func anAddedQueryKeepsTheURLsQueryAndEncodesItsPlus() throws {
        let signed = try #require(URL(string: "https://blob.example/c/f.bin?sig=ab%2Bcd%2Fef%3D&se=1"))
        let request = HTTPRequest(
            .get,
            baseURL: signed,
            queryItems: [
                URLQueryItem(name: "since", value: "2026-01-01T00:00:00+01:00"), URLQueryItem(name: "a&b", value: nil),
            ]
        )
        #expect(
            try request.url().absoluteString
                == "https://blob.example/c/f.bin?sig=ab%2Bcd%2Fef%3D&se=1&since=2026-01-01T00:00:00%2B01:00&a%26b"
        )
    }

    /// A key placed in a path as `users/\(key)` cannot climb out of `users/`: a `.` or `..` segment is refused
    /// (libcurl and servers resolve them, so `../admin` reached `/admin`); what only looks like one is kept, and
    /// `?`, `#` and `%` stay inside the segment. Segments are found by bytes: a combining mark or a joiner after a
    /// `/` makes the two one `Character`, which hid the `..` before it.
    @Test(arguments: [
        "../admin", "..", ".", "a/../../admin", "a/./b", "../", "../\u{301}admin", "../\u{200D}admin", "./\u{FE0F}b",
    ])
    func aDotSegmentInThePathIsRefused(key: String) throws {
        let request = HTTPRequest(.delete, baseURL: base, path: "users/\(key)")

        let error = #expect(throws: StrataError.self) { try request.url() }

        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("another resource") == true)
    }

    /// Before, only ``HTTPRequest/path`` was checked: a URL given whole (`init(_:url:)`, a rule that appends a key to
    /// a URL by hand) kept its `..`, which the transport resolved (`DELETE /admin` on the wire).
    @Test(arguments: [
        "http://127.0.0.1:8080/api/notes/../admin", "http://127.0.0.1:8080/api/notes/./a",
        "http://127.0.0.1:8080/api/notes/%2e%2E/admin", "http://127.0.0.1:8080/api/notes/.%2e",
        "http://127.0.0.1:8080/api/notes/%2E/a", "http://127.0.0.1:8080/api/notes/%2e.", "http://127.0.0.1:8080/..",
    ])
    func aDotSegmentInAWholeURLIsRefused(url: String) throws {
        let request = HTTPRequest(.delete, url: try #require(URL(string: url)))

        let error = #expect(throws: StrataError.self) { try request.url() }

        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("another resource") == true)
    }

    @Test func aKeyAppendedToAWholeURLCannotClimbOutOfIt() throws {
        let request = HTTPRequest(.delete, url: base.appendingPathComponent("notes/../admin"))

        #expect(throws: StrataError.self) { try request.url() }
        #expect(try HTTPRequest(url: base.appendingPathComponent("notes/%2e%2e")).url().path.hasSuffix("%2e%2e"))
    }

    /// The message quotes the path cut to 64 Unicode scalars: a letter and 100,000 combining marks are one
    /// `Character`, which a cut by `Character` quoted whole.
    @Test func theMessageOfARefusedPathIsBoundedWhateverItsCharacters() throws {
        let path = "users/../a" + String(repeating: "\u{301}", count: 100_000)
        let error = #expect(throws: StrataError.self) { try HTTPRequest(baseURL: base, path: path).url() }
        #expect(error?.code == .invalidArgument)
        #expect((error?.message.utf8.count ?? .max) < 1_000)
    }

    /// The check reads a URL's path byte by byte: a segment counts as a dot segment exactly when Foundation's
    /// percent-decoding makes it `.` or `..`, as a server that decodes it would.
    @Test(arguments: [
        "...", "%2e%2e%2e", "%2", ".%2", "%2e%2", "%2f", "%252e", "%2E%", "%2ex", "x%2e", "%2E.%2e", ".%2E%2e", "%2e/",
        ".", "%2e", "%2E", "..", "%2e%2E", ".%2e", "%2E.",
    ])
    func aSegmentIsRefusedExactlyWhenItDecodesToADotSegment(segment: String) throws {
        let url = try #require(URL(string: "http://127.0.0.1:8080/api/\(segment)/a"))
        let path = try #require(URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath)
        let decodesToDots = path.split(separator: "/").contains { [".", ".."].contains($0.removingPercentEncoding) }

        #expect(((try? HTTPRequest(url: url).url()) == nil) == decodesToDots)
    }

    @Test func segmentsThatOnlyLookLikeDotSegmentsAreKept() throws {
        let keys = ["...", "..a", ".hidden", "a..", "%2e%2e", "a?b#c"]
        let urls = try keys.map { try HTTPRequest(baseURL: base, path: "users/\($0)").url().absoluteString }

        #expect(
            urls == [
                "http://127.0.0.1:8080/api/users/...", "http://127.0.0.1:8080/api/users/..a",
                "http://127.0.0.1:8080/api/users/.hidden", "http://127.0.0.1:8080/api/users/a..",
                "http://127.0.0.1:8080/api/users/%252e%252e", "http://127.0.0.1:8080/api/users/a%3Fb%23c",
            ]
        )
    }

    /// A `;` in a key placed in a path or in a query item is sent encoded: servers that split path parameters at it
    /// (Tomcat, Jetty, Spring: `/users/1;x` is `/users/1`, and `..;/admin` is `/admin`) or query parameters (Rack 2,
    /// Python's `parse_qs` before 3.9.2: `q=x;admin=1` is two) read the key as it is. A `;` of the base URL stays.
    @Test func aSemicolonInAKeyIsEncodedInThePathAndInTheQuery() throws {
        let matrixBase = try #require(URL(string: "http://127.0.0.1:8080/api;v=2/"))
        let keys = ["users/1;x", "users/..;/admin"]
        let paths = try keys.map { try HTTPRequest(baseURL: base, path: $0).url().absoluteString }
        let query = HTTPRequest(
            baseURL: base,
            path: "search",
            queryItems: [URLQueryItem(name: "q;", value: "x;admin=1")]
        )

        #expect(paths == ["http://127.0.0.1:8080/api/users/1%3Bx", "http://127.0.0.1:8080/api/users/..%3B/admin"])
        #expect(try query.url().absoluteString == "http://127.0.0.1:8080/api/search?q%3B=x%3Badmin%3D1")
        #expect(
            try HTTPRequest(baseURL: matrixBase, path: "a;b").url().absoluteString
                == "http://127.0.0.1:8080/api;v=2/a%3Bb"
        )
    }

    /// Through a client and a real server: nothing is sent for a key that would climb out of its collection.
    @Test(.timeLimit(.minutes(1))) func aClientSendsNothingForAKeyThatClimbsOutOfItsPath() async throws {
        let server = try await LoopbackServer.start([
            ("DELETE /admin", { _ in ServerReply(status: 204) }),
            ("DELETE /users/*", { _ in ServerReply(status: 204) }),
        ])
        defer { Task { await server.stop() } }
        let client = makeClient()

        let error = await strataError {
            _ = try await client.send(HTTPRequest(.delete, baseURL: server.baseURL, path: "users/../admin"))
        }

        #expect(error?.code == .invalidArgument)
        #expect(server.requests.isEmpty)
    }

    @Test func jsonBodySetsContentType() throws {
        let request = try HTTPRequest(.post, baseURL: base, path: "users").withJSONBody(["name": "Ada"])
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.body == Data("{\"name\":\"Ada\"}".utf8))
    }

    @Test func headersAreCaseInsensitive() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain"]
        headers.add("no-cache", for: "Cache-Control")
        headers.add("max-age=0", for: "cache-control")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers["Cache-Control"] == "no-cache, max-age=0")
        headers["cache-control"] = nil
        #expect(headers["Cache-Control"] == nil)
        #expect(headers.fields.count == 1)
    }

    /// A server's flood of header fields (tens of thousands of names, or of one name repeated) is gathered and merged
    /// in time linear in the fields: before, every field searched the names gathered so far.
    @Test func aFloodOfFieldsIsGatheredByNameIgnoringASCIICase() {
        let count = 20_000
        var flood = HTTPHeaders((0..<count).map { HTTPHeaders.Field(name: "X-Field-\($0)", value: "\($0)") })
        for _ in 0..<count { flood.add("again", for: "x-repeated") }
        flood.add("ä", for: "X-ÄB")
        flood.add("Ä", for: "x-Äb")
        flood.add("other", for: "x-äb")

        let dictionary = flood.dictionary
        #expect(dictionary.count == count + 3)
        #expect(dictionary["X-Field-17"] == "17")
        #expect(dictionary["x-repeated"]?.count == count * "again, ".count - 2)
        // Only ASCII letters fold: "Ä" and "ä" are other bytes
        #expect(dictionary["X-ÄB"] == "ä, Ä")
        #expect(dictionary["x-äb"] == "other")

        var merged = flood
        merged.merge(HTTPHeaders((0..<count).map { HTTPHeaders.Field(name: "x-field-\($0)", value: "new") }))
        #expect(merged.fields.count == 2 * count + 3)
        #expect(merged["X-FIELD-19999"] == "new")
        #expect(merged["X-ÄB"] == "ä, Ä")
    }

    /// A fragment is never sent: URLs that differ only in one have one cache key.
    @Test func theCacheKeyLeavesTheFragmentOut() throws {
        let request = HTTPRequest(.get, url: try #require(URL(string: "https://example.com/a?q=1#section")))
        #expect(request.cacheKey == "https://example.com/a?q=1")
        var custom = request
        custom.cacheKey = "mine#kept"
        #expect(custom.cacheKey == "mine#kept")
    }

    @Test func conditionalHeaders() {
        let conditions = ConditionalHeaders(eTag: "\"v1\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
        let request = HTTPRequest(baseURL: base).withConditions(conditions)
        #expect(request.headers["If-None-Match"] == "\"v1\"")
        #expect(request.headers["If-Modified-Since"] == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(ConditionalHeaders.weakMatch("W/\"v1\"", "\"v1\""))
        #expect(!ConditionalHeaders.weakMatch("\"v1\"", "\"v2\""))
        // Compared byte for byte (RFC 9110, section 8.8.3.2), not by canonical equivalence.
        #expect(!ConditionalHeaders.weakMatch("\"caf\u{E9}\"", "\"cafe\u{301}\""))
        #expect(ConditionalHeaders.weakMatch("W/\"caf\u{E9}\"", "\"caf\u{E9}\""))
        #expect(ConditionalHeaders.isValidEntityTag("\"v1\""))
        #expect(ConditionalHeaders.isValidEntityTag("W/\"v1\""))
        #expect(ConditionalHeaders.isValidEntityTag("\"\""))
        #expect(ConditionalHeaders.isValidEntityTag("\"caf\u{E9}\""))
        #expect(!ConditionalHeaders.isValidEntityTag("v1"))
        #expect(!ConditionalHeaders.isValidEntityTag("\""))
        #expect(!ConditionalHeaders.isValidEntityTag("W/\"\u{1}\""))
        #expect(ConditionalHeaders(eTag: "garbage").headers["If-None-Match"] == nil)
        #expect(
            ConditionalHeaders(eTag: nil, lastModifiedDate: Date(timeIntervalSince1970: 784_111_777)).lastModified
                == "Sun, 06 Nov 1994 08:49:37 GMT"
        )
    }

    @Test func methodsAreUppercased() {
        #expect(HTTPMethod(rawValue: "patch") == .patch)
        #expect(
            [HTTPMethod.get, .put, .post, .patch, .delete, .head].map(\.rawValue)
                == ["GET", "PUT", "POST", "PATCH", "DELETE", "HEAD"]
        )
    }

    /// URLSession cannot send a `GET` or `HEAD` with a body (FoundationNetworking and Apple's alike): an
    /// `invalidArgument` before anything is sent, on every platform, not the `network` error it answers with, which a
    /// `RetryPlugin` would retry for ever.
    @Test(arguments: [HTTPMethod.get, .head])
    func aBodyWithGETIsRefusedByURLSession(method: HTTPMethod) async throws {
        let request = HTTPRequest(method, baseURL: try #require(URL(string: "http://127.0.0.1:9/")), body: Data())
        let error = await strataError { _ = try await HTTPClient().send(request) }
        #expect(error?.code == .invalidArgument, "\(String(describing: error))")
        #expect(throws: StrataError.self) { try request.urlRequest() }
    }

}
