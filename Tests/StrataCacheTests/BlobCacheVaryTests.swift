import Foundation
import LoopbackServer
import StrataCache
import StrataNetwork
import Testing

/// The persistent layer keeps a response that varies on request fields (`Vary`, RFC 9111, section 4.1) with a digest
/// of the values its request sent in them, and serves it only to a request that sends the same values: after a
/// language switch or a sign-in on the same folder, the other answer is asked for, never served.
struct BlobCacheVaryTests {
    @Test(.timeLimit(.minutes(1)), arguments: ["Accept-Language", "Authorization", "Cookie"])
    func aVariedAnswerIsServedOnlyToARequestThatSendsTheSameValues(field: String) async throws {
        // Given a server whose answer, fresh for an hour, varies on a request field
        let route: @Sendable (ServerRequest) async throws -> ServerReply = { request in
            ServerReply(
                status: 200,
                headers: ["Cache-Control": "max-age=3600", "Vary": field],
                body: Data("answer for \(request.headers[field.lowercased()] ?? "nobody")".utf8)
            )
        }
        try await withFixture([("GET /greeting", route)]) { fixture in
            // A cache on the fixture's folder whose client sends `value` in the field, released once it fetched
            func fetch(sending value: String) async throws -> BlobCache.Fetched {
                let cache = try fixture.makeCache(headers: [field: value])
                return try await cache.fetchWithLayer(from: fixture.url("greeting"))
            }

            // When one value's answer is stored, then the folder is opened by caches that send another value, and
            // the first again
            let first = try await fetch(sending: "en")
            let other = try await fetch(sending: "fr")
            let otherAgain = try await fetch(sending: "fr")
            let firstAgain = try await fetch(sending: "en")

            // Then each request got the answer to its own value: a stored answer to another value was never served
            #expect(first.data == Data("answer for en".utf8) && first.origin == .network)
            #expect(other.data == Data("answer for fr".utf8) && other.origin == .network)
            #expect(otherAgain.data == Data("answer for fr".utf8) && otherAgain.origin == .file)
            #expect(firstAgain.data == Data("answer for en".utf8) && firstAgain.origin == .network)
            #expect(fixture.server.requestCount(path: "/greeting") == 3)
        }
    }
}
