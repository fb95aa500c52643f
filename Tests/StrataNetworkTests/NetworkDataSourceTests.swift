import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

struct User: Codable, Hashable, Sendable {
    var id: Int
    var name: String
}

/// A tiny users API on the loopback server, backed by a dictionary.
final class UsersAPI: Sendable {
    let users = Locked<[String: Data]>([:])
    let gets = ByteCounter()

    var routes: [(String, @Sendable (ServerRequest) async throws -> ServerReply)] {
        [
            (
                "GET /users",
                { [self] _ in
                    let all = users.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
                    let body = Data("[".utf8) + all.joined(separator: Data(",".utf8)) + Data("]".utf8)
                    return ServerReply(status: 200, body: body)
                }
            ),
            (
                "GET /users/*",
                { [self] request in
                    gets.add(1)
                    guard let body = users.withLock({ $0[request.path] }) else { return ServerReply(status: 404) }
                    return ServerReply(status: 200, body: body)
                }
            ),
            (
                "PUT /users/*",
                { [self] request in
                    users.withLock { $0[request.path] = request.body }
                    return ServerReply(status: 200, body: request.body)
                }
            ),
            (
                "DELETE /users/*",
                { [self] request in
                    let existed = users.withLock { $0.removeValue(forKey: request.path) } != nil
                    return ServerReply(status: existed ? 204 : 404)
                }
            ),
        ]
    }
}

struct NetworkDataSourceTests {
    static func source(_ baseURL: URL) -> NetworkDataSource<User> {
        @Sendable func request(_ method: HTTPMethod) -> NetworkRequestRule {
            { query in
                switch query {
                case let query as any KeyedQuery:
                    return HTTPRequest(method, baseURL: baseURL, path: "users/\(query.key)")
                case is AllObjectsQuery where method == .get:
                    return HTTPRequest(method, baseURL: baseURL, path: "users")
                default:
                    throw StrataError.queryNotSupported(query, by: NetworkDataSource<User>.self)
                }
            }
        }
        return NetworkDataSource<User>(
            client: makeClient(),
            requestForGet: request(.get),
            requestForPut: request(.put),
            requestForDelete: request(.delete)
        )
    }

    @Test func putGetGetAllDelete() async throws {
        let api = UsersAPI()
        let server = try await LoopbackServer.start(api.routes)
        defer { Task { await server.stop() } }
        let source = Self.source(server.baseURL)

        let stored = try await source.put(User(id: 1, name: "Ada"), in: IdQuery(1))
        _ = try await source.put(User(id: 2, name: "Grace"), in: KeyQuery("2"))
        let read = try await source.get(IdQuery(1))
        let all = try await source.getAll(AllObjectsQuery())
        try await source.delete(IdQuery(1))
        try await source.delete(IdQuery(1))  // deleting what is gone succeeds
        let missing = await strataError { _ = try await source.get(IdQuery(1)) }
        let unsupported = await strataError {
            _ = try await source.get(PaginationOffsetLimitQuery(offset: 0, limit: 1))
        }

        #expect(stored == User(id: 1, name: "Ada"))
        #expect(read == stored)
        #expect(all == [User(id: 1, name: "Ada"), User(id: 2, name: "Grace")])
        #expect(missing?.code == .notFound)
        #expect(unsupported?.code == .queryNotSupported)
    }

    @Test func cacheRepositoryUsesTheSameQueriesOnBothSides() async throws {
        // Given a network main source and an in-memory cache
        let api = UsersAPI()
        api.users.withLock { $0["/users/7"] = Data(#"{"id":7,"name":"Lin"}"#.utf8) }
        let server = try await LoopbackServer.start(api.routes)
        defer { Task { await server.stop() } }
        let cache = ScriptedDataSource<User>()
        let repository = CacheRepository(main: Self.source(server.baseURL), cache: cache)

        // When the same query is read twice with CacheSync
        let first = try await repository.get(IdQuery(7), operation: .cacheSync)
        let second = try await repository.get(IdQuery(7), operation: .cacheSync)

        // Then the network is asked once and the cache holds the value under the same key
        #expect(first == User(id: 7, name: "Lin"))
        #expect(second == first)
        #expect(api.gets.total == 1)
        #expect(cache.contents["7"] == first)
    }

    @Test func badBodyIsDataSerialization() async throws {
        let api = UsersAPI()
        api.users.withLock { $0["/users/9"] = Data("{oops".utf8) }
        let server = try await LoopbackServer.start(api.routes)
        defer { Task { await server.stop() } }

        let error = await strataError { _ = try await Self.source(server.baseURL).get(IdQuery(9)) }

        #expect(error?.code == .dataSerialization)
    }

    /// Before, the message said only which request's body did not decode: a proxy's HTML page answered with 200
    /// read like a changed schema. It says what came back now — status, size, `Content-Type` — and never the body.
    @Test func aBodyThatDoesNotDecodeIsDescribedWithoutItsBytes() async throws {
        let page = Data("<html>secret-token sign in</html>".utf8)
        let longType = "text/" + String(repeating: "x", count: 200)
        let server = try await LoopbackServer.start([
            ("GET /users/1", { _ in ServerReply(status: 200, headers: ["Content-Type": "text/html"], body: page) }),
            (
                "GET /users/2",
                { _ in ServerReply(status: 203, headers: ["Content-Type": longType], body: Data("x".utf8)) }
            ),
            ("GET /users/3", { _ in ServerReply(status: 200, body: Data("[]".utf8)) }),
        ])
        defer { Task { await server.stop() } }
        let source = Self.source(server.baseURL)

        let html = await strataError { _ = try await source.get(IdQuery(1)) }
        let long = await strataError { _ = try await source.get(IdQuery(2)) }
        let untyped = await strataError { _ = try await source.getEntry(IdQuery(3)) }

        #expect(html?.code == .dataSerialization)
        #expect(html?.underlying is DecodingError)
        let message = html.map { "\($0)" } ?? ""
        #expect(message.contains("(HTTP 200, \(page.count) bytes, Content-Type text/html)"))
        #expect(!message.contains("secret-token"))
        #expect(long.map { "\($0)" }?.contains("(HTTP 203, 1 byte, a Content-Type not shown (205 bytes))") == true)
        #expect(untyped.map { "\($0)" }?.contains("(HTTP 200, 2 bytes, no Content-Type)") == true)
    }
}
