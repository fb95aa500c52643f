import Foundation

/// A transport whose sends and downloads are one exchange, told where the body goes: it implements
/// ``exchange(_:into:maximumBodySize:)`` and gets ``HTTPTransport/send(_:maximumBodySize:)`` and
/// ``HTTPTransport/download(_:to:maximumBodySize:progress:)`` from it.
package protocol HTTPExchangeTransport: HTTPTransport {
    /// The clock the transport reads its requests' deadlines on: the continuous clock, moved on only by a test.
    var deadlineClock: DeadlineClock { get }

    /// Sends a request, its body going to `destination`, as ``HTTPTransport`` describes for a send and a download.
    ///
    /// - Parameters:
    ///   - request: The request; its ``HTTPRequest/timeout`` and ``HTTPRequest/totalTimeout`` are set.
    ///   - destination: Memory (all of it, or a 2xx's and an error's first bytes), or the file of a download with its
    ///     progress.
    ///   - maximumBodySize: The most body bytes to accept.
    func exchange(
        _ request: HTTPRequest,
        into destination: HTTPBodyDestination,
        maximumBodySize: Int
    ) async throws -> HTTPResponse
}

extension HTTPExchangeTransport {
    /// Tests only: moves the clock this transport's deadlines are read on `duration` forward, and has it look at them
    /// at once (``DeadlineClock/advance(by:)``): a deadline passes without the test waiting for it.
    ///
    /// - Parameter duration: How far the clock moves.
    package func advanceDeadlineClock(by duration: Duration) { deadlineClock.advance(by: duration) }

    /// Sends a request, gathering the body in memory up to `maximumBodySize` bytes.
    public func send(_ request: HTTPRequest, maximumBodySize: Int) async throws -> HTTPResponse {
        try await exchange(request, into: .memory, maximumBodySize: maximumBodySize)
    }

    /// Sends a request, writing the body to `destination` as it arrives.
    ///
    /// The file is created when the response arrives, and only for a 2xx status: a `304 Not Modified` or an
    /// error status writes nothing to disk, and its body (at most its first ``HTTPFailure/bodyPrefixLimit``
    /// bytes, after which the connection is closed and the rest never read) comes back in the response.
    public func download(
        _ request: HTTPRequest,
        to destination: URL,
        maximumBodySize: Int,
        progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws -> HTTPResponse {
        try await exchange(request, into: .file(destination, progress: progress), maximumBodySize: maximumBodySize)
    }
}

extension HTTPTransport {
    /// The clock the transport reads its requests' deadlines on: a Strata transport's own
    /// (``HTTPExchangeTransport/deadlineClock``), the continuous clock for any other.
    package var clockForDeadlines: DeadlineClock {
        (self as? any HTTPExchangeTransport)?.deadlineClock ?? .continuous
    }

    /// Sends a request through ``send(_:maximumBodySize:)`` or ``download(_:to:maximumBodySize:progress:)``, as
    /// `destination` says: how a transport that wraps another passes an exchange on.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - destination: Memory (all of it, or a 2xx's and an error's first bytes), or the file of a download with its
    ///     progress.
    ///   - maximumBodySize: The most body bytes to accept.
    package func send(
        _ request: HTTPRequest,
        into destination: HTTPBodyDestination,
        maximumBodySize: Int
    ) async throws -> HTTPResponse {
        switch destination {
        case .memory:
            try await send(request, maximumBodySize: maximumBodySize)
        case .successInMemory:
            // A transport of the package's keeps an error's first bytes only; any other, the whole body.
            if let exchanging = self as? any HTTPExchangeTransport {
                try await exchanging.exchange(request, into: destination, maximumBodySize: maximumBodySize)
            } else {
                try await send(request, maximumBodySize: maximumBodySize)
            }
        case .file(let url, let progress):
            try await download(request, to: url, maximumBodySize: maximumBodySize, progress: progress)
        }
    }
}
