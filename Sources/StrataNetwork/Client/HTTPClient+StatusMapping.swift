import Foundation
import Strata

extension HTTPClient {
    /// Maps a response to the error its status stands for, or `nil` for 2xx.
    ///
    /// | status | code | retryable |
    /// |---|---|---|
    /// | 2xx | — (success) | |
    /// | 404, 410 | ``Strata/StrataError/Code/notFound`` | no |
    /// | 401, 403 | ``Strata/StrataError/Code/unauthorized`` | no |
    /// | 409, 412 | ``Strata/StrataError/Code/conflict`` | no |
    /// | 408, 429, 5xx but 501 and 505 | ``Strata/StrataError/Code/unexpectedResponse`` | yes, with `Retry-After` |
    /// | any other (a 304, a 501, a 505 included) | ``Strata/StrataError/Code/unexpectedResponse`` | no |
    ///
    /// A 5xx may have taken effect (``Strata/StrataError/mayHaveTakenEffect``): a server that failed inside, or a
    /// gateway or proxy that lost the origin's answer, may have carried the request out first. Not a 501 (the method
    /// is not implemented) nor a 505 (the HTTP version is not supported), which say the request cannot be served, nor
    /// a 503, by which a server says it did not handle the request (overload, maintenance: retry, after its
    /// `Retry-After`).
    ///
    /// A 304 is an error only here, for a request that did not ask for one: the conditional forms
    /// (``send(_:ifModifiedSince:)``, ``download(_:ifModifiedSince:progress:)``) answer it as
    /// ``ConditionalResponse/notModified(_:)``.
    ///
    /// Every error has an ``HTTPFailure`` (status, every header, first 512 body bytes, the `Retry-After` wait)
    /// as ``Strata/StrataError/underlying``, read with ``Strata/StrataError/httpFailure``; the wait is also the
    /// error's ``Strata/StrataError/suggestedRetryDelay``. The message includes at most the first 512 bytes of
    /// the body.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - request: The request, as `METHOD URL`, for the message.
    ///   - now: The current time, for a `Retry-After` date.
    public static func error(for response: HTTPResponse, request: String, now: Date) -> StrataError? {
        error(status: response.status, headers: response.headers, bodyPrefix: response.body, request: request, now: now)
    }

    /// As ``error(for:request:now:)``, for a response to `request`: a write (any method but `GET` and `HEAD`) that a
    /// redirect turned into a `GET` (``HTTPResponse/followedAsGet``), or answered with a 303 not followed, fails as one
    /// that may have taken effect, and is not retried: the status is the `GET`'s, which says nothing of the write, and
    /// a server answers a write with a 303 once it carried it out (RFC 9110, section 15.4.4); a `409` or `412` there is
    /// about the resource the write led to, no conflict of the write's own. A write a redirect sent again as it was (a
    /// 307, 308) is answered by the target as any write.
    static func error(for response: HTTPResponse, to request: HTTPRequest, now: Date) -> StrataError? {
        let isWrite = request.method != .get && request.method != .head
        return error(
            status: response.status,
            headers: response.headers,
            bodyPrefix: response.body,
            request: describe(request),
            now: now,
            afterRedirectOfAWrite: isWrite && (response.followedAsGet || response.status == 303)
        )
    }

    /// The error a status stands for, `nil` for a 2xx: `request`, the request's description for the error, is made
    /// only for an error (building it reads the request's URL, a cost on every response otherwise).
    static func error(
        status: Int,
        headers: HTTPHeaders,
        bodyPrefix: Data,
        request: @autoclosure () -> String,
        now: Date,
        afterRedirectOfAWrite: Bool = false
    ) -> StrataError? {
        guard !(200..<300).contains(status) else { return nil }
        let code: StrataError.Code
        var isRetryable = false
        var retryAfter: Duration?
        switch status {
        case 404, 410: code = .notFound
        case 401, 403: code = .unauthorized
        case 409, 412: code = .conflict
        case 408, 429,
            500..<600 where !unservable.contains(status):
            code = .unexpectedResponse
            isRetryable = true
            retryAfter = headers.retryAfter(now: now)
        default: code = .unexpectedResponse
        }
        if afterRedirectOfAWrite {
            isRetryable = false
            retryAfter = nil
        }
        let failure = HTTPFailure(
            status: status,
            headers: headers,
            body: bodyPrefix,
            request: request(),
            retryAfter: retryAfter,
            isRetryable: isRetryable
        )
        // A server that failed inside, or whose gateway lost the answer, may have carried out the request first.
        return StrataError(
            afterRedirectOfAWrite && code == .conflict ? .unexpectedResponse : code,
            failure.description,
            underlying: failure,
            isRetryable: isRetryable,
            mayHaveTakenEffect: afterRedirectOfAWrite
                || ((500..<600).contains(status) && status != 503 && !unservable.contains(status))
        )
    }

    /// The 5xx statuses that say the request itself cannot be served (501 Not Implemented, 505 HTTP Version Not
    /// Supported): never retried, and taken for no effect.
    private static let unservable: Set<Int> = [501, 505]
}
