import Foundation
import Strata
import StrataNetwork
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

    @Test func conditionalHeaders() {
        let conditions = ConditionalHeaders(eTag: "\"v1\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
        let request = HTTPRequest(baseURL: base).withConditions(conditions)
        #expect(request.headers["If-None-Match"] == "\"v1\"")
        #expect(request.headers["If-Modified-Since"] == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(ConditionalHeaders.weakMatch("W/\"v1\"", "\"v1\""))
        #expect(!ConditionalHeaders.weakMatch("\"v1\"", "\"v2\""))
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
}
