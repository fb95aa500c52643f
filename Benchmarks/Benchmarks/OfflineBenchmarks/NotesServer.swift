import FlyingFox
import Foundation
import Synchronization

/// A FlyingFox HTTP server on 127.0.0.1 (a port the system picks) that takes `PUT /notes/<key>` and answers 204
/// (no content), or 503 while it is "down"; it counts the writes it took.
final class NotesServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    let baseURL: URL
    private let server: HTTPServer
    private let task: Task<Void, any Error>
    private let state: ServerState

    private init(
        baseURL: URL,
        server: HTTPServer,
        task: Task<Void, any Error>,
        state: ServerState
    ) {
        self.baseURL = baseURL
        self.server = server
        self.task = task
        self.state = state
    }

    /// Whether every write is answered 503.
    var isDown: Bool {
        get { state.lock.withLock { $0.isDown } }
        set { state.lock.withLock { $0.isDown = newValue } }
    }

    /// How many writes the server took.
    var writes: Int { state.lock.withLock { $0.writes } }

    /// Starts a server.
    static func start() async throws -> NotesServer {
        let state = ServerState()
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 60, logger: .disabled)
        await server.appendRoute("PUT /notes/*") { request in
            // The body is read whole, as a real server would, before the answer.
            _ = try await request.bodyData
            let isDown = state.lock.withLock { state -> Bool in
                if !state.isDown { state.writes += 1 }
                return state.isDown
            }
            // No body in the answer: FlyingFox writes a response's head and body in two writes without
            // TCP_NODELAY, and the client's delayed acknowledgement then holds every answer with a body for 40 ms
            // (the tests' LoopbackServer turns Nagle off instead). A 204 makes the put return the value it sent.
            return HTTPResponse(statusCode: isDown ? .serviceUnavailable : .noContent)
        }
        let task = Task { try await server.run() }
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port) = await server.listeningAddress,
            let baseURL = URL(string: "http://127.0.0.1:\(port)")
        else {
            task.cancel()
            throw CocoaError(.featureUnsupported)
        }
        return NotesServer(baseURL: baseURL, server: server, task: task, state: state)
    }

    /// Stops the server.
    func stop() async {
        task.cancel()
        await server.stop(timeout: 0)
    }
}

/// Whether the server is down, and the writes it took.
final class ServerState: Sendable {
    let lock = Mutex<(isDown: Bool, writes: Int)>((false, 0))
}
