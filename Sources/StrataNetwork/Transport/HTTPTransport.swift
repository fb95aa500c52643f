import Foundation

/// What sends HTTP requests for an ``HTTPClient``: ``URLSessionTransport`` by default, or your own (a
/// stub in tests, another HTTP library on a server).
///
/// A transport returns every response, whatever its status: the client maps statuses to errors. It
/// throws only ``Strata/StrataError``: ``Strata/StrataError/Code/network`` for transport failures (with
/// the `URLError` as `underlying`), ``Strata/StrataError/Code/tooLarge`` when the body exceeds the
/// limit, ``Strata/StrataError/Code/cancelled`` when the calling task is cancelled — saying
/// ``Strata/StrataError/mayHaveTakenEffect`` once the request may have left, as a timeout then does.
///
/// A transport enforces both deadlines of every request — ``HTTPRequest/timeout`` (no byte for that long)
/// and ``HTTPRequest/totalTimeout`` (not finished within that long) — failing with a retryable
/// ``Strata/StrataError/Code/network`` error, and never holds more than `maximumBodySize` body bytes of an answer
/// (``URLSessionTransport`` cannot bound the body of a redirect it follows: FoundationNetworking reads it without
/// showing it to the transport).
///
/// A transport that follows redirects sets ``HTTPResponse/followedAsGet`` on the response to a write (any method but
/// `GET` and `HEAD`) that a redirect made it send again as a `GET` (a 303; a `POST`'s 301 or 302): the client then
/// fails an error status of it as one that may have taken effect, and never retries it.
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns the response with its body in memory.
    ///
    /// ``HTTPClient`` reads only the first ``HTTPFailure/bodyPrefixLimit`` bytes of a non-2xx body. Strata's own
    /// transports are told so through a call of the package's, and stop reading a long error body once those are in;
    /// this method, which a transport of your own implements, returns whole bodies, so its limit applies to error
    /// pages too — and so does a wrapper of your own around a Strata transport, which can only call this method.
    ///
    /// - Parameters:
    ///   - request: The request; its ``HTTPRequest/timeout`` and ``HTTPRequest/totalTimeout`` are set.
    ///   - maximumBodySize: The most body bytes to accept; a transport fails with
    ///     ``Strata/StrataError/Code/tooLarge`` as soon as it knows the body is larger, without reading
    ///     the rest.
    func send(_ request: HTTPRequest, maximumBodySize: Int) async throws -> HTTPResponse

    /// Sends a request and writes the response body to a file, reporting progress.
    ///
    /// Only a 2xx response's body goes to the file: for any other status (a `304 Not Modified`, an error) the
    /// transport should create no file and return the body, or its first ``HTTPFailure/bodyPrefixLimit``
    /// bytes, in the response — and read no more of a long error body than those (Strata's transports read a body
    /// announced as at most 64 KiB to its end, keeping the connection, and cut any other once its first bytes are
    /// in, so an endless error body ends at once). The client deletes a file a transport created anyway, except after
    /// a 304.
    ///
    /// - Parameters:
    ///   - request: The request; its ``HTTPRequest/timeout`` and ``HTTPRequest/totalTimeout`` are set.
    ///   - destination: The file to create for a 2xx response; the caller deletes it when the call fails.
    ///   - maximumBodySize: The most body bytes to accept.
    ///   - progress: Called as bytes arrive, from any thread.
    /// - Returns: The response: for a 2xx with an empty body (it is in the file), otherwise with its body or
    ///   the beginning of it.
    func download(
        _ request: HTTPRequest,
        to destination: URL,
        maximumBodySize: Int,
        progress: @escaping @Sendable (DownloadProgress) -> Void
    ) async throws -> HTTPResponse
}
