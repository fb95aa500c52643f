import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import Testing

struct HTTPClientStatusTests {
    /// status, expected code (nil for success), retryable.
    static let table: [(Int, StrataError.Code?, Bool)] = [
        (200, nil, false), (201, nil, false), (204, nil, false),
        (304, .notModified, false),
        (400, .httpStatus, false), (401, .unauthorized, false), (403, .unauthorized, false),
        (404, .notFound, false), (408, .httpStatus, true), (409, .httpStatus, false), (422, .httpStatus, false),
        (429, .httpStatus, true), (500, .httpStatus, true), (502, .httpStatus, true), (503, .httpStatus, true),
    ]

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
        #expect(failure.httpStatus == status)
        #expect(failure.isRetryable == retryable)
        #expect(failure.retryAfter == (retryable ? .seconds(7) : nil))
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
        #expect(error?.retryAfter == .seconds(30))
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
        let error = await strataError { _ = try await client.send(request.withConditions(conditions)) }

        // Then
        #expect(first.eTag == "\"v1\"")
        #expect(first.cacheControl.maxAge == .seconds(60))
        #expect(conditions.lastModified == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(error?.code == .notModified)
        #expect(error?.httpStatus == 304)
        #expect(error?.isRetryable == false)
        #expect(error?.httpFailure?.headers["Cache-Control"] == "max-age=120")
    }
}
