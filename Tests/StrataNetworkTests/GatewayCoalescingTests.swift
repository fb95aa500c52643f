import Foundation
import LoopbackServer
import StrataMemory
import StrataNetwork
import StrataTestSupport
import Testing

@testable import Strata

/// A repository used as a gateway — many users' reads of one key, main an HTTP source computing freshness for a
/// shared cache — shares a main read only when its answer may be stored: one user's answer (`private`, a `Vary` on
/// a request field, an answer to credentials) is never handed to the reads that joined it.
struct GatewayCoalescingTests {
    /// How the server answers, and whether the request carries credentials.
    struct Case: Sendable, CustomTestStringConvertible {
        /// Credentials a request may carry.
        enum Credentials: Sendable {
            case none, authorization, urlUser
        }

        var name: String
        var headers: [String: String]
        var credentials = Credentials.none
        /// Whether the answer may be handed to the read that joined: one request then, two otherwise.
        var isShared = false

        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "private", headers: ["Cache-Control": "private, max-age=60"]),
        Case(name: "Vary: Authorization", headers: ["Cache-Control": "max-age=60", "Vary": "Authorization"]),
        Case(name: "Vary: Accept-Language", headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"]),
        Case(name: "Authorization", headers: ["Cache-Control": "max-age=60"], credentials: .authorization),
        Case(name: "a user in the URL", headers: ["Cache-Control": "max-age=60"], credentials: .urlUser),
        Case(name: "storable", headers: ["Cache-Control": "max-age=60"], isShared: true),
        Case(
            name: "Authorization, public",
            headers: ["Cache-Control": "public, max-age=60"],
            credentials: .authorization,
            isShared: true
        ),
        Case(
            name: "Vary: Accept-Encoding",
            headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Encoding"],
            isShared: true
        ),
    ]

    @Test(.timeLimit(.minutes(1)), arguments: cases)
    func aConcurrentReadGetsAnotherUsersAnswerOnlyWhenItMayBeStored(_ answer: Case) async throws {
        // Given a server whose first answer is held until a second read has joined the first, each answer numbered
        let gate = Gate()
        let server = try await LoopbackServer.start([
            (
                "GET /greeting",
                numberedRoute { number in
                    if number == 1 { await gate.wait() }
                    return ServerReply(
                        status: 200,
                        headers: answer.headers.merging(["Content-Type": "application/json"]) { first, _ in first },
                        body: Data(#"{"name":"answer \#(number)"}"#.utf8)
                    )
                }
            )
        ])
        defer { Task { await server.stop() } }
        let port = try #require(server.baseURL.port)
        let userURL = try #require(URL(string: "http://ann:secret@127.0.0.1:\(port)/greeting"))
        var network = NetworkGetDataSource<Item>(client: makeClient()) { _ in
            switch answer.credentials {
            case .none:
                return HTTPRequest(baseURL: server.baseURL, path: "greeting")
            case .authorization:
                var request = HTTPRequest(baseURL: server.baseURL, path: "greeting")
                request.headers["Authorization"] = "Bearer ann"
                return request
            case .urlUser:
                return HTTPRequest(url: userURL)
            }
        }
        network.freshnessPolicy = .sharedCache
        let repository = CacheRepository(main: network, cache: MemoryDataSource<Item>())

        // When two reads of one key miss the cache together, the second joining the first's main read
        async let first = repository.get(KeyQuery("greeting"), operation: .cacheSync)
        await poll { server.requestCount() >= 1 }
        async let second = repository.get(KeyQuery("greeting"), operation: .cacheSync)
        await poll { repository.mainReads.waiterCount >= 2 }
        gate.open()
        let answers = try await [first.name, second.name].sorted()

        // Then an answer that must not be stored went only to the read that asked for it: the other asked the server
        // itself; a storable one was shared
        if answer.isShared {
            #expect(answers == ["answer 1", "answer 1"])
            #expect(server.requestCount(path: "/greeting") == 1)
        } else {
            #expect(answers == ["answer 1", "answer 2"])
            #expect(server.requestCount(path: "/greeting") == 2)
        }
    }
}
