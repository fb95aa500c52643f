import Foundation
import Strata

/// What a transport knows of one exchange while it runs: the request as `METHOD URL` for its messages, its method,
/// where its body goes, the most body bytes to accept, and its deadlines.
package struct HTTPExchange: Sendable {
    /// The request, as `METHOD URL`.
    package let description: String
    /// The request's method.
    package let method: HTTPMethod
    /// Where the body goes.
    package let destination: HTTPBodyDestination
    /// The most body bytes to accept.
    package let limit: Int
    /// The request's deadlines, from when the exchange was made (its first request's, across redirects).
    package private(set) var deadlines: RequestDeadlines

    /// The exchange of `request`, sent to `url`, starting at `start`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - url: The URL it is sent to; `nil` names the request by its path.
    ///   - destination: Where the body goes.
    ///   - maximumBodySize: The most body bytes to accept.
    ///   - start: When its deadlines start: the time on the clock the transport reads them on (``DeadlineClock``).
    package init(
        _ request: HTTPRequest,
        url: URL?,
        into destination: HTTPBodyDestination,
        maximumBodySize: Int,
        start: ContinuousClock.Instant
    ) {
        description = request.describedForErrors(sentTo: url)
        method = request.method
        self.destination = destination
        limit = maximumBodySize
        deadlines = RequestDeadlines(of: request, start: start)
    }

    /// The exchange of the request a redirect leads to: `request` sent to `url`, into the same destination, within
    /// the deadlines of this exchange (a total deadline spans every redirect).
    ///
    /// - Parameters:
    ///   - request: The request to send next.
    ///   - url: The URL it is sent to.
    package func redirected(_ request: HTTPRequest, to url: URL) -> HTTPExchange {
        var next = HTTPExchange(request, url: url, into: destination, maximumBodySize: limit, start: deadlines.start)
        next.deadlines = deadlines
        return next
    }

    /// Whether an error's body, of which only the first ``HTTPFailure/bodyPrefixLimit`` bytes are kept, is read on
    /// to its end (the rest dropped) rather than cut short by ending the exchange: while its `Content-Length`
    /// (`announced`, for a body ``bodyIsCountable(status:headers:)``) says at most 64 KiB and no more than that has
    /// come (`received`: a chunked body under a lying length is cut). Ending an exchange mid-body closes its
    /// connection, and an API's routine 404 would cost the next request a new one; a body longer, unannounced or
    /// endless is cut once its first bytes are in.
    package static func drainsErrorBody(announced: Int64?, received: Int) -> Bool {
        guard let announced, announced <= 64 << 10 else { return false }
        return Int64(received) <= announced
    }

    /// Whether the body's bytes can be held to `Content-Length`: not for `HEAD`, 1xx, 204 and 304, nor for an encoded
    /// body (one the transport may have decompressed).
    ///
    /// - Parameters:
    ///   - status: The response's status.
    ///   - headers: The response's headers.
    package func bodyIsCountable(status: Int, headers: HTTPHeaders) -> Bool {
        guard method != .head, status >= 200, status != 204, status != 304 else { return false }
        return (headers["Content-Encoding"]?.lowercased() ?? "identity") == "identity"
    }

    /// The most room a body kept in memory reserves before its bytes arrive (1 MiB).
    package static let maximumReservation = 1 << 20

    /// The room to reserve for a body kept in memory whose response announced `contentLength` bytes (within the
    /// limit): all of it up to ``maximumReservation``, and beyond that the body grows as bytes arrive.
    ///
    /// An announcement is not a promise: reserved whole, a response that sends nothing would hold as much memory as
    /// the limit allows for as long as it stalls (64 of them, 6 GiB under the default limit), and one past what the
    /// allocator can give — under a limit near `Int.max` — would trap.
    ///
    /// - Parameter contentLength: The response's `Content-Length`.
    package static func reservation(forContentLength contentLength: Int64) -> Int {
        Int(clamping: min(max(contentLength, 0), Int64(maximumReservation)))
    }

    /// The error of a body larger than the limit: ``Strata/StrataError/Code/tooLarge``, with the response (its status
    /// and headers) as its cause.
    ///
    /// - Parameters:
    ///   - contentLength: The response's `Content-Length`, when it said so before any byte of the body was read;
    ///     `nil` when a chunk would have taken the body past the limit.
    ///   - status: The response's status, if a response came.
    ///   - headers: The response's headers.
    ///   - file: The source file creating the error; leave the default.
    ///   - line: The source line creating the error; leave the default.
    package func tooLarge(
        contentLength: Int64? = nil,
        status: Int?,
        headers: HTTPHeaders,
        file: String = #fileID,
        line: Int = #line
    ) -> StrataError {
        let size = contentLength.map { "Content-Length \($0)" } ?? "the body"
        return StrataError(
            .tooLarge,
            "\(description): \(size) exceeds the limit of \(limit) bytes",
            underlying: status.map { HTTPFailure(status: $0, headers: headers, body: Data(), request: description) },
            file: file,
            line: line
        )
    }

    /// The error of a body that runs past the `expected` bytes its `Content-Length` announced.
    package func bodyOverran(_ expected: Int64, file: String = #fileID, line: Int = #line) -> StrataError {
        bodyBroken(
            "the body runs past the \(expected) bytes its Content-Length announced",
            .cannotParseResponse,
            file: file,
            line: line
        )
    }

    /// The error of a body that ended before its `Content-Length`: a ``Strata/StrataError/Code/network`` error with
    /// `URLError(.networkConnectionLost)` underneath.
    ///
    /// - Parameters:
    ///   - received: The body bytes received.
    ///   - expected: The `Content-Length`.
    ///   - file: The source file creating the error; leave the default.
    ///   - line: The source line creating the error; leave the default.
    package func bodyEnded(
        after received: Int,
        of expected: Int64,
        file: String = #fileID,
        line: Int = #line
    ) -> StrataError {
        bodyBroken(
            "the body ended after \(received) of \(expected) bytes",
            .networkConnectionLost,
            file: file,
            line: line
        )
    }

    /// The ``Strata/StrataError/Code/network`` error of a body that broke its `Content-Length`: `what` happened, said
    /// of this exchange, with `URLError(code)` underneath. Whether the request may have taken effect is
    /// ``failure(_:afterHead:)``'s to say, from the head that came.
    private func bodyBroken(_ what: String, _ code: URLError.Code, file: String, line: Int) -> StrataError {
        StrataError(.network, "\(description): \(what)", underlying: URLError(code), file: file, line: line)
    }

    /// The error of an exchange that ended without an HTTP response: a ``Strata/StrataError/Code/network`` error.
    ///
    /// - Parameters:
    ///   - file: The source file creating the error; leave the default.
    ///   - line: The source line creating the error; leave the default.
    package func noResponse(file: String = #fileID, line: Int = #line) -> StrataError {
        // A request that got no answer at all may have reached the server.
        StrataError(
            .network,
            "\(description) got no HTTP response",
            mayHaveTakenEffect: true,
            file: file,
            line: line
        )
    }

    /// `error`, saying ``Strata/StrataError/mayHaveTakenEffect`` when the server answered the request with a head that
    /// did not refuse it (a final status, not a `4xx`) before the transfer failed (a body cut, too large, past its
    /// length): the request reached the server, which may have carried it out. Every transport ends a failed exchange
    /// through it.
    ///
    /// - Parameters:
    ///   - error: The transfer's failure.
    ///   - status: The status of the head that came, if one did.
    package static func failure(_ error: any Error, afterHead status: Int?) -> any Error {
        guard var error = error as? StrataError, let status, status >= 200, !(400..<500).contains(status) else {
            return error
        }
        error.mayHaveTakenEffect = true
        return error
    }

    /// The error of a download whose file could not be written: an ``Strata/StrataError/Code/io`` error.
    ///
    /// - Parameters:
    ///   - error: Why the write failed.
    ///   - file: The source file creating the error; leave the default.
    ///   - line: The source line creating the error; leave the default.
    package func writeFailed(_ error: any Error, file: String = #fileID, line: Int = #line) -> StrataError {
        StrataError.io("Writing \(description) to a file failed", underlying: error, file: file, line: line)
    }
}
