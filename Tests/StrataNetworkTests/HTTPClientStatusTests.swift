import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

struct HTTPClientStatusTests {
    /// status, expected code (nil for success), retryable.
    static let table: [(Int, StrataError.Code?, Bool)] = [
        (200, nil, false), (201, nil, false), (204, nil, false),
        // A 304 to a request that asked for none is unexpected; the conditional forms answer it as a value.
        (304, .unexpectedResponse, false),
        (400, .unexpectedResponse, false), (401, .unauthorized, false), (403, .unauthorized, false),
        (404, .notFound, false), (408, .unexpectedResponse, true), (409, .conflict, false), (412, .conflict, false),
        (422, .unexpectedResponse, false), (429, .unexpectedResponse, true), (500, .unexpectedResponse, true),
        (502, .unexpectedResponse, true), (503, .unexpectedResponse, true),
    ]

    /// An error names its request without the URL's user and password, and its redacted form (what observability
    /// plugins report unless told to include values) keeps the code and status but not the URL's query or the body.
    @Test func anErrorNeverCarriesTheURLsCredentialsAndItsRedactedFormNoQueryOrBody() async throws {
        let server = try await LoopbackServer.start([
            (
                "GET /items",
                { _ in ServerReply(status: 503, headers: ["Retry-After": "2"], body: Data("secret-body".utf8)) }
            )
        ])
        defer { Task { await server.stop() } }
        var components = try #require(URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false))
        components.user = "ada"
        components.password = "hunter2"
        components.path = "/items"
        components.query = "token=abc"
        let url = try #require(components.url)

        let error = await strataError { _ = try await makeClient().send(HTTPRequest(.get, url: url)) }

        let full = String(describing: try #require(error))
        #expect(!full.contains("hunter2") && !full.contains("ada@"))
        #expect(full.contains("token=abc") && full.contains("secret-body"))
        let redacted = String(describing: try #require(error?.redacted()))
        #expect(redacted == "StrataError.unexpectedResponse: HTTP 503, retry after 2.0 seconds")
        #expect(error?.redacted().isRetryable == true)
    }

    @Test("Statuses map to codes", arguments: table)
    func statusMapping(status: Int, code: StrataError.Code?, retryable: Bool) async throws {
        // Given a server answering `status` with a 600-byte body (none for 204 and 304)
        let body = Data(repeating: UInt8(ascii: "x"), count: 600)
        let server = try await LoopbackServer.start([
            (
                "GET /status",
                { _ in
                    ServerReply(
                        status: status,
                        headers: ["Retry-After": "7", "X-Trace": "t1"],
                        body: [204, 304].contains(status) ? Data() : body
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let client = makeClient()

        // When
        let request = HTTPRequest(.get, baseURL: server.baseURL, path: "status")
        var response: HTTPResponse?
        let error = await strataError { response = try await client.send(request) }

        // Then
        guard let code else {
            #expect(error == nil)
            #expect(response?.status == status)
            return
        }
        let failure = try #require(error)
        #expect(failure.code == code)
        #expect(failure.httpFailure?.status == status)
        #expect(failure.isRetryable == retryable)
        #expect(failure.suggestedRetryDelay == (retryable ? .seconds(7) : nil))
        #expect(failure.httpFailure?.headers["x-trace"] == "t1")
        if status != 304 {
            #expect(failure.httpFailure?.bodyPrefix.count == 512)
            #expect(failure.message.contains(String(repeating: "x", count: 512)))
            #expect(!failure.message.contains(String(repeating: "x", count: 513)))
        }
    }

    @Test func retryAfterDateIsRelativeToTheClock() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let response = HTTPResponse(status: 503, headers: ["Retry-After": HTTPDate.format(now.addingTimeInterval(30))])
        let error = HTTPClient.error(for: response, request: "GET /", now: now)
        #expect(error?.suggestedRetryDelay == .seconds(30))
        #expect(error?.isRetryable == true)
    }

    @Test func undecodableBodyIsDataSerialization() async throws {
        let server = try await LoopbackServer.start([
            ("GET /user", { _ in ServerReply(status: 200, body: Data("not json".utf8)) })
        ])
        defer { Task { await server.stop() } }

        let error = await strataError {
            _ = try await makeClient().send(HTTPRequest(baseURL: server.baseURL, path: "user"), decoding: [String].self)
        }

        #expect(error?.code == .dataSerialization)
        #expect(error?.underlying is DecodingError)
    }

    @Test func requestPartsReachTheServer() async throws {
        let server = try await LoopbackServer.start([
            (
                "POST /echo",
                { request in
                    let summary = "\(request.method) \(request.query["q"] ?? "-") \(request.headers["x-one"] ?? "-")"
                    return ServerReply(status: 200, body: Data(summary.utf8) + request.body)
                }
            )
        ])
        defer { Task { await server.stop() } }
        let request = HTTPRequest(
            .post,
            baseURL: server.baseURL,
            path: "echo",
            queryItems: [URLQueryItem(name: "q", value: "1")],
            headers: ["X-One": "a"],
            body: Data(" body".utf8)
        )

        let response = try await makeClient().send(request)

        #expect(String(decoding: response.body, as: UTF8.self) == "POST 1 a body")
    }
}

struct ConditionalRequestTests {
    @Test func eTagRoundTripAnswers304() async throws {
        // Given a server that checks If-None-Match
        let server = try await LoopbackServer.start([
            (
                "GET /resource",
                { request in
                    if request.headers["if-none-match"] == "\"v1\"" {
                        return ServerReply(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=120"])
                    }
                    return ServerReply(
                        status: 200,
                        headers: [
                            "ETag": "\"v1\"", "Cache-Control": "max-age=60",
                            "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT",
                        ],
                        body: Data("hello".utf8)
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let client = makeClient()
        let request = HTTPRequest(baseURL: server.baseURL, path: "resource")

        // When the first fetch stores the validators and the second sends them
        let first = try await client.send(request)
        let conditions = ConditionalHeaders(response: first)
        let second = try await client.send(request, ifModifiedSince: conditions)

        // Then the 304 is a value, with its headers, not an error
        #expect(first.eTag == "\"v1\"")
        #expect(first.cacheControl.maxAge == .seconds(60))
        #expect(conditions.lastModified == "Sun, 06 Nov 1994 08:49:37 GMT")
        guard case .notModified(let notModified) = second else {
            Issue.record("Expected not modified, got \(second)")
            return
        }
        #expect(notModified.status == 304)
        #expect(notModified.headers["Cache-Control"] == "max-age=120")
        #expect(server.requests.last?.headers["if-none-match"] == "\"v1\"")
    }

    @Test func aChangedResourceIsModified() async throws {
        let server = try await LoopbackServer.start([
            ("GET /resource", { _ in ServerReply(status: 200, headers: ["ETag": "\"v2\""], body: Data("new".utf8)) })
        ])
        defer { Task { await server.stop() } }
        let request = HTTPRequest(baseURL: server.baseURL, path: "resource")

        let answer = try await makeClient().send(request, ifModifiedSince: ConditionalHeaders(eTag: "\"v1\""))

        guard case .modified(let response) = answer else {
            Issue.record("Expected modified, got \(answer)")
            return
        }
        #expect(response.body == Data("new".utf8))
        #expect(response.eTag == "\"v2\"")
    }

    @Test func aPlain304IsAnUnexpectedResponseWithItsDetailsInTheCause() async throws {
        let server = try await LoopbackServer.start([
            ("GET /resource", { _ in ServerReply(status: 304, headers: ["ETag": "\"v1\""]) })
        ])
        defer { Task { await server.stop() } }

        let error = await strataError {
            _ = try await makeClient().send(HTTPRequest(baseURL: server.baseURL, path: "resource"))
        }

        #expect(error?.code == .unexpectedResponse)
        #expect(error?.httpFailure?.status == 304)
        #expect(error?.isRetryable == false)
        #expect(error?.httpFailure?.headers["ETag"] == "\"v1\"")
    }
}
