import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import Testing

/// A conditional read sends validators only with a GET or a HEAD: `If-None-Match` and `If-Modified-Since` on another
/// method are preconditions of a state change (RFC 9110, sections 13.1.2 and 13.1.3), which a compliant server answers
/// with `412 Precondition Failed` when the tag matches, or ignores.
struct ConditionalReadMethodTests {
    @Test(.timeLimit(.minutes(1)))
    func aReadWhoseRuleBuildsAPostIsSentWithoutValidators() async throws {
        // Given a server answering a POST query (GraphQL-style) as a compliant server does: 412 to a matching tag
        let server = try await LoopbackServer.start([
            (
                "POST /graphql",
                { request in
                    if request.headers["if-none-match"] != nil || request.headers["if-modified-since"] != nil {
                        return ServerReply(status: 412)
                    }
                    return ServerReply(
                        status: 200,
                        headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"],
                        body: Data(#"{"name":"a"}"#.utf8)
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let network = NetworkGetDataSource<Item>(client: makeClient()) { _ in
            HTTPRequest(.post, baseURL: server.baseURL, path: "graphql", body: Data(#"{"query":"{item}"}"#.utf8))
        }

        // When an entry stored with validators is read conditionally
        let stored = EntryMetadata(eTag: "\"v1\"", lastModified: "Mon, 13 Nov 2023 22:13:20 GMT")
        let answer = try await network.getIfModified(KeyQuery("item"), since: stored)

        // Then the POST went without them, and its answer is the value it gave
        guard case .modified(let entry) = answer else {
            Issue.record("expected the POST's answer, got \(answer)")
            return
        }
        #expect(entry.value == Item(name: "a"))
    }

    /// A 304 to a POST, which went without the stored copy's validators, cannot be about that copy: it is
    /// `unexpectedResponse`, for a send and a download alike, and a download's POST carries no validators either.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aNotModifiedToAPostIsUnexpected(download: Bool) async throws {
        // Given a server (or a proxy) that answers every POST with a 304, and records whether it carried validators
        let sawValidators = Locked(false)
        let server = try await LoopbackServer.start([
            (
                "POST /graphql",
                { request in
                    if request.headers["if-none-match"] != nil || request.headers["if-modified-since"] != nil {
                        sawValidators.withLock { $0 = true }
                    }
                    return ServerReply(status: 304, headers: ["ETag": "\"v1\""])
                }
            )
        ])
        defer { Task { await server.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let client = makeClient(downloadDirectory: folder.url)
        let request = HTTPRequest(.post, baseURL: server.baseURL, path: "graphql", body: Data("{}".utf8))
        let conditions = ConditionalHeaders(eTag: "\"v1\"")

        // When the POST is sent with a stored copy's validators
        let error = await strataError {
            if download {
                _ = try await client.download(request, ifModifiedSince: conditions)
            } else {
                _ = try await client.send(request, ifModifiedSince: conditions)
            }
        }

        // Then it went without them, and the 304 is not taken as "not modified"
        #expect(error?.code == .unexpectedResponse, "\(String(describing: error))")
        #expect(!sawValidators.withLock { $0 })
    }
}
