import FlyingFox
import FlyingSocks
import Foundation
import Strata

/// A request as the loopback server saw it (names lower-cased), independent of FlyingFox's types, whose
/// names clash with StrataNetwork's.
struct ServerRequest: Sendable {
    var method: String
    var path: String
    var query: [String: String]
    var headers: [String: String]
    var body: Data
}

/// What a route answers.
struct ServerReply: Sendable {
    var status: Int
    var headers: [String: String] = [:]
    var body: Data = Data()
}

/// A FlyingFox HTTP server on 127.0.0.1, on a port the system picks, for one test.
struct LoopbackServer: Sendable {
    private let server: HTTPServer
    private let task: Task<Void, any Error>

    /// `http://127.0.0.1:<port>`.
    let baseURL: URL

    /// Starts a server with routes such as `"GET /users/*"`.
    static func start(
        _ routes: [(String, @Sendable (ServerRequest) async throws -> ServerReply)]
    ) async throws -> LoopbackServer {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 60, logger: .disabled)
        for (route, handler) in routes {
            await server.appendRoute(HTTPRoute(route)) { request in
                var headers: [String: String] = [:]
                for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
                var query: [String: String] = [:]
                for item in request.query { query[item.name] = item.value }
                let reply = try await handler(
                    ServerRequest(
                        method: request.method.rawValue,
                        path: request.path,
                        query: query,
                        headers: headers,
                        body: try await request.bodyData
                    )
                )
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
        return LoopbackServer(server: server, task: task, baseURL: URL(string: "http://127.0.0.1:\(port)")!)
    }

    /// Stops the server and its connections.
    func stop() async {
        task.cancel()
        await server.stop(timeout: 0)
    }
}

/// A latch that route handlers wait on until the test opens it.
final class Gate: Sendable {
    private let state = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Waits until ``open()``.
    func wait() async {
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
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
