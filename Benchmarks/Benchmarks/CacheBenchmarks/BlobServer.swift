import FlyingFox
import Foundation
import Synchronization

/// A FlyingFox HTTP server on 127.0.0.1 (a port the system picks) that answers every blob path with the
/// same bytes, fresh for a day, and counts the requests it receives per path.
///
/// `GET /blob/<name>` answers at once; `GET /slow/<name>` answers after 50 ms, so that concurrent fetches
/// of one URL overlap for certain.
final class BlobServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    let baseURL: URL
    private let server: HTTPServer
    private let task: Task<Void, any Error>
    private let counts: RequestCounts

    private init(baseURL: URL, server: HTTPServer, task: Task<Void, any Error>, counts: RequestCounts) {
        self.baseURL = baseURL
        self.server = server
        self.task = task
        self.counts = counts
    }

    /// The URL of `path` (such as `blob/7`) on this server.
    func url(_ path: String) -> URL { baseURL.appendingPathComponent(path) }

    /// How many requests reached `path` (such as `/slow/3`).
    func requestCount(path: String) -> Int { counts.count(path) }

    /// Starts a server that answers with `body`.
    static func start(body: Data) async throws -> BlobServer {
        let counts = RequestCounts()
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 60, logger: .disabled)
        let headers: HTTPHeaders = [
            HTTPHeader("Cache-Control"): "max-age=86400",
            HTTPHeader("Content-Type"): "application/octet-stream",
        ]
        await server.appendRoute("GET /blob/*") { request in
            counts.record(request.path)
            return HTTPResponse(statusCode: .ok, headers: headers, body: body)
        }
        await server.appendRoute("GET /slow/*") { request in
            counts.record(request.path)
            try await Task.sleep(for: .milliseconds(50))
            return HTTPResponse(statusCode: .ok, headers: headers, body: body)
        }
        let task = Task { try await server.run() }
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port) = await server.listeningAddress,
            let baseURL = URL(string: "http://127.0.0.1:\(port)")
        else {
            task.cancel()
            throw CocoaError(.featureUnsupported)
        }
        return BlobServer(baseURL: baseURL, server: server, task: task, counts: counts)
    }

    /// Stops the server.
    func stop() async {
        task.cancel()
        await server.stop(timeout: 0)
    }
}

/// Requests received, by path.
final class RequestCounts: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func record(_ path: String) { counts.withLock { $0[path, default: 0] += 1 } }

    func count(_ path: String) -> Int { counts.withLock { $0[path] ?? 0 } }
}
