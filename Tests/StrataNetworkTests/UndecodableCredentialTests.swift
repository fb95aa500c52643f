import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataNetwork
import StrataTestSupport
import Testing

/// A URL whose user or password does not decode as UTF-8 (`http://a%FFb:pw@…`) is refused before anything is sent,
/// on either transport: Foundation reads such a user as none (`URL.user` is `nil`), while libcurl sends it.
struct UndecodableCredentialTests {
    /// The user infos whose user or password is not UTF-8 once percent-decoded.
    static let userInfos = ["a%FFb:pw", "ann:p%FF", "a%FFb"]

    /// A URL to `server`'s `/greeting` with `userInfo`.
    private static func url(to server: LoopbackServer, userInfo: String) throws -> URL {
        let port = try #require(server.baseURL.port)
        return try #require(URL(string: "http://\(userInfo)@127.0.0.1:\(port)/greeting"))
    }

    /// A server whose `/greeting` answers JSON that a shared cache may store unless the request carries credentials.
    private static func greetingServer() async throws -> LoopbackServer {
        try await LoopbackServer.start([
            (
                "GET /greeting",
                { _ in
                    ServerReply(
                        status: 200,
                        headers: ["Cache-Control": "max-age=60", "Content-Type": "application/json"],
                        body: Data(#"{"name":"ann's"}"#.utf8)
                    )
                }
            )
        ])
    }

    /// Before, URLSession (libcurl) sent the credentials while AsyncHTTPClient sent none (the server answered it as
    /// another user, or 401), and the request was described as carrying none.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, userInfos)
    func aURLWhoseCredentialsDoNotDecodeIsRefusedBeforeAnythingIsSent(
        transport kind: TransportUnderTest,
        userInfo: String
    ) async throws {
        // Given a server, and a URL to it whose user or password is not UTF-8
        let server = try await Self.greetingServer()
        defer { Task { await server.stop() } }
        let request = HTTPRequest(url: try Self.url(to: server, userInfo: userInfo))

        // When it is sent through a client, and straight to the transport
        let sent = await strataError { _ = try await makeClient(kind.make()).send(request) }
        let direct = await strataError { _ = try await kind.make().send(request, maximumBodySize: 1024) }

        // Then both are refused, nothing reached the server, and the message names the URL without its credentials
        for error in [sent, direct] {
            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
            #expect(error?.message.contains("%FF") == false, "\(String(describing: error?.message))")
        }
        #expect(server.requests.isEmpty, "\(server.requests.map(\.headers))")
    }

    /// Before, a shared cache counted such a URL as carrying no credentials (only a decoded user counted): URLSession
    /// sent them, and the answer to that user was stored for everyone.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all)
    func aSharedCacheStoresNoAnswerToCredentialsThatDoNotDecode(transport kind: TransportUnderTest) async throws {
        // Given a shared cache in front of a server, and a request whose user is not UTF-8
        let server = try await Self.greetingServer()
        defer { Task { await server.stop() } }
        let url = try Self.url(to: server, userInfo: "a%FFb:pw")
        var network = NetworkGetDataSource<Item>(client: makeClient(kind.make())) { _ in HTTPRequest(url: url) }
        network.freshnessPolicy = .sharedCache
        let memory = MemoryDataSource<Item>()
        let repository = CacheRepository(main: network, cache: memory)

        // When it is read through the cache
        let error = await strataError { _ = try await repository.get(KeyQuery("greeting"), operation: .cacheSync) }

        // Then it is refused: nothing was sent, nothing stored
        #expect(error?.code == .invalidArgument, "\(String(describing: error))")
        #expect(server.requests.isEmpty, "\(server.requests.map(\.headers))")
        #expect(memory.value(forKey: "greeting") == nil)
    }

    /// A redirect whose `Location` names the same origin with such a user or password is not followed, on either
    /// transport: the redirect is the answer (`unexpectedResponse`, its status 302), as for any redirect the transports'
    /// rule does not follow, and the target is never asked. Before, the transport followed it, the credentials
    /// unchecked.
    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.all, userInfos)
    func aRedirectToCredentialsThatDoNotDecodeIsNotFollowed(
        transport kind: TransportUnderTest,
        userInfo: String
    ) async throws {
        // Given a server whose `/start` redirects to its own `/greeting`, with a user or password that is not UTF-8
        let target = Locked<String?>(nil)
        let server = try await LoopbackServer.start([
            ("GET /start", { _ in ServerReply(status: 302, headers: ["Location": target.withLock { $0 ?? "" }]) }),
            ("GET /greeting", { _ in ServerReply(status: 200, body: Data("hello".utf8)) }),
        ])
        defer { Task { await server.stop() } }
        target.withLock { $0 = try? Self.url(to: server, userInfo: userInfo).absoluteString }

        // When a request to `/start` is sent
        let start = server.baseURL.appendingPathComponent("start")
        let error = await strataError { _ = try await makeClient(kind.make()).send(HTTPRequest(url: start)) }

        // Then the redirect is the answer, and the target was never asked
        #expect(error?.code == .unexpectedResponse, "\(String(describing: error))")
        #expect(error?.httpFailure?.status == 302)
        #expect(server.requests.map(\.path) == ["/start"], "\(server.requests.map(\.headers))")
    }

    /// Before, a user that does not decode, without a password, was printed whole: the URL counted as carrying none.
    @Test(arguments: ["http://a%FFb@api.example/x", "http://a%FFb:pw@api.example/x", "http://ann:p%FF@api.example/x"])
    func aURLsDescriptionLeavesOutCredentialsThatDoNotDecode(text: String) throws {
        let url = try #require(URL(string: text))

        #expect(url.describedForErrors == "http://api.example/x")
        #expect(url.withoutCredentials?.absoluteString == "http://api.example/x")
    }
}
