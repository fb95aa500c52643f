import Foundation
import Strata
import StrataNetwork

/// The one test transport: records every request it is handed, then answers as its ``Behaviour`` says.
///
/// It replaces the recording, offline and loopback transports the test targets and the BlobCache crash writer
/// each used to keep.
package final class TestTransport: HTTPTransport {
    /// How the transport answers.
    package enum Behaviour: Sendable {
        /// Sends the request through a real `URLSessionTransport`.
        case network
        /// Sends the request through a real `URLSessionTransport` to one loopback server, whatever host its URL
        /// names, one connection per request.
        case loopback(URL)
        /// Answers 200 with no body, without a network.
        case ok
        /// Fails with ``Strata/StrataError/Code/network``, as a machine without a network does.
        case offline
    }

    private let behaviour: Behaviour
    private let base = URLSessionTransport()
    private let recorded = Locked<[HTTPRequest]>([])
    private let afterDownload: @Sendable () -> Void

    /// Creates a transport that answers as `behaviour` says.
    ///
    /// - Parameters:
    ///   - behaviour: How it answers.
    ///   - afterDownload: Runs in the caller's task once a download's answer is in, before it is handed back to the
    ///     client: a test acts at that point (lists the download folder before the client could delete anything,
    ///     cancels the caller once the answer is all in).
    package init(_ behaviour: Behaviour = .network, afterDownload: @escaping @Sendable () -> Void = {}) {
        self.behaviour = behaviour
        self.afterDownload = afterDownload
    }

    /// The requests handed to the transport so far, in order.
    package var requests: [HTTPRequest] { recorded.withLock { $0 } }

    /// Records `request` and answers it.
    package func send(_ request: HTTPRequest, maximumBodySize: Int) async throws -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        switch behaviour {
        case .network: return try await base.send(request, maximumBodySize: maximumBodySize)
        case .loopback(let server):
            return try await base.send(Self.redirect(request, to: server), maximumBodySize: maximumBodySize)
        case .ok: return HTTPResponse(status: 200)
        case .offline: throw StrataError(.network, "Offline: \(request.cacheKey)")
        }
    }

    /// Records `request` and answers it, writing a body to `destination`.
    package func download(
        _ request: HTTPRequest,
        to destination: URL,
        maximumBodySize: Int,
        progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws -> HTTPResponse {
        switch behaviour {
        case .network, .loopback:
            recorded.withLock { $0.append(request) }
            let sent = if case .loopback(let server) = behaviour { Self.redirect(request, to: server) } else { request }
            let response = try await base.download(
                sent,
                to: destination,
                maximumBodySize: maximumBodySize,
                progress: progress
            )
            afterDownload()
            return response
        case .ok, .offline:
            return try await send(request, maximumBodySize: maximumBodySize)
        }
    }

    /// `request` sent to `server`'s scheme, host and port, with `Connection: close`.
    private static func redirect(_ request: HTTPRequest, to server: URL) -> HTTPRequest {
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
