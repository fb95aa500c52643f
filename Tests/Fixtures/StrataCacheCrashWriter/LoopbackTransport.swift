import Foundation
import StrataNetwork

/// Sends every request to one loopback server, whatever host its URL names.
struct LoopbackTransport: HTTPTransport {
    let server: URL
    let base = URLSessionTransport()

    func send(_ request: HTTPRequest, maximumBodySize: Int) async throws -> HTTPResponse {
        try await base.send(redirected(request), maximumBodySize: maximumBodySize)
    }

    func download(
        _ request: HTTPRequest,
        to destination: URL,
        maximumBodySize: Int,
        progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws -> HTTPResponse {
        try await base.download(
            redirected(request),
            to: destination,
            maximumBodySize: maximumBodySize,
            progress: progress
        )
    }

    private func redirected(_ request: HTTPRequest) -> HTTPRequest {
        var request = request
        var components = URLComponents(url: request.baseURL, resolvingAgainstBaseURL: true)
        components?.scheme = server.scheme
        components?.host = server.host
        components?.port = server.port
        if let url = components?.url { request.baseURL = url }
        // A connection per request: on a kept-alive connection, the server's header and body writes meet
        // delayed acknowledgements (Nagle) and each download waits 40 ms.
        request.headers["Connection"] = "close"
        return request
    }
}
