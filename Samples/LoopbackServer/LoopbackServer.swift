import FlyingFox
import FlyingSocks
import Foundation
import Strata

/// A request as the loopback server saw it (names lower-cased), independent of FlyingFox's types, whose
/// names clash with StrataNetwork's.
public struct ServerRequest: Sendable {
    /// The method, such as `GET`.
    public var method: String
    /// The path, such as `/users/42`.
    public var path: String
    /// The query items by name.
    public var query: [String: String]
    /// The headers by lower-cased name.
    public var headers: [String: String]
    /// The body.
    public var body: Data
}

/// What a route answers.
public struct ServerReply: Sendable {
    /// The status code.
    public var status: Int
    /// The headers.
    public var headers: [String: String]
    /// The body.
    public var body: Data

    /// Creates a reply.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A FlyingFox HTTP server on 127.0.0.1, on a port the system picks, for tests and samples.
///
/// It counts the requests it receives by path (``requestCount(path:)``), so tests can prove that a cache
/// made no request, or exactly one.
public struct LoopbackServer: Sendable {
    private let server: HTTPServer
    private let task: Task<Void, any Error>
    private let counter: RequestCounter

    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL

    /// How many requests reached `path` so far (every path when `nil`).
    public func requestCount(path: String? = nil) -> Int { counter.count(path: path) }

    /// Every request received so far, in order.
    public var requests: [ServerRequest] { counter.all }

    /// Starts a server with routes such as `"GET /users/*"`.
    public static func start(
        _ routes: [(String, @Sendable (ServerRequest) async throws -> ServerReply)]
    ) async throws -> LoopbackServer {
        let counter = RequestCounter()
        let server = HTTPServer(
            address: try .inet(ip4: "127.0.0.1", port: 0),
            timeout: 60,
            pool: SharedSocketPool(),
            logger: .disabled
        )
        for (route, handler) in routes {
            await server.appendRoute(HTTPRoute(route)) { request in
                var headers: [String: String] = [:]
                for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
                var query: [String: String] = [:]
                for item in request.query { query[item.name] = item.value }
                let received = ServerRequest(
                    method: request.method.rawValue,
                    path: request.path,
                    query: query,
                    headers: headers,
                    body: try await request.bodyData
                )
                counter.record(received)
                let reply = try await handler(received)
                var replyHeaders = HTTPHeaders()
                for (name, value) in reply.headers { replyHeaders[HTTPHeader(name)] = value }
                return HTTPResponse(
                    statusCode: HTTPStatusCode(reply.status, phrase: "Status \(reply.status)"),
                    headers: replyHeaders,
                    body: reply.body
                )
            }
        }
        let task = Task { try await server.run() }
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port) = await server.listeningAddress else {
            task.cancel()
            throw CocoaError(.featureUnsupported)
        }
        guard let baseURL = URL(string: "http://127.0.0.1:\(port)") else { throw CocoaError(.featureUnsupported) }
        ListeningSocket.disableNagle(port: port)
        return LoopbackServer(server: server, task: task, counter: counter, baseURL: baseURL)
    }

    /// Stops the server and its connections.
    ///
    /// The server's waits in the shared pool end before its sockets close, so a descriptor number the system hands
    /// out again is never answered for this server.
    public func stop() async {
        task.cancel()
        _ = await task.result
        await server.stop(timeout: 0)
    }
}

/// Counts the requests a server receives.
final class RequestCounter: Sendable {
    private let requests = Locked<[ServerRequest]>([])

    func record(_ request: ServerRequest) { requests.withLock { $0.append(request) } }

    var all: [ServerRequest] { requests.withLock { $0 } }

    func count(path: String?) -> Int {
        requests.withLock { requests in path.map { path in requests.filter { $0.path == path }.count } ?? requests.count
        }
    }
}

/// A route that answers the request it receives `n`th (from 1) with `reply(n)`: a server whose answers change from one
/// request to the next.
public func numberedRoute(
    _ reply: @escaping @Sendable (Int) async -> ServerReply
) -> @Sendable (ServerRequest) async throws -> ServerReply {
    let received = Locked(0)
    return { _ in
        let number = received.withLock { count in
            count += 1
            return count
        }
        return await reply(number)
    }
}

/// A latch that route handlers wait on until the test opens it.
public final class Gate: Sendable {
    private let state = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Creates a closed gate.
    public init() {}

    /// Waits until ``open()``.
    public func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Releases every waiter, now and later.
    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
