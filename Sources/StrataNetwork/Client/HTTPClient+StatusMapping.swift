import Foundation
import Strata

extension HTTPClient {
    /// Maps a response to the error its status stands for, or `nil` for 2xx.
    ///
    /// | status | code | retryable |
    /// |---|---|---|
    /// | 2xx | — (success) | |
    /// | 304 | ``Strata/StrataError/Code/notModified`` | no |
    /// | 404 | ``Strata/StrataError/Code/notFound`` | no |
    /// | 401, 403 | ``Strata/StrataError/Code/unauthorized`` | no |
    /// | 408, 429, 5xx | ``Strata/StrataError/Code/httpStatus`` | yes, with `Retry-After` |
    /// | any other | ``Strata/StrataError/Code/httpStatus`` | no |
    ///
    /// Every error has ``Strata/StrataError/httpStatus`` set and an ``HTTPFailure`` (status, headers,
    /// first 512 body bytes) as ``Strata/StrataError/underlying``; its message includes at most the first
    /// 512 bytes of the body.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - request: The request, as `METHOD URL`, for the message.
    ///   - now: The current time, for a `Retry-After` date.
    public static func error(for response: HTTPResponse, request: String, now: Date) -> StrataError? {
        error(status: response.status, headers: response.headers, bodyPrefix: response.body, request: request, now: now)
    }

    static func error(status: Int, headers: HTTPHeaders, bodyPrefix: Data, request: String, now: Date) -> StrataError? {
        guard !(200..<300).contains(status) else { return nil }
        let failure = HTTPFailure(status: status, headers: headers, body: bodyPrefix, request: request)
        let code: StrataError.Code
        var isRetryable = false
        var retryAfter: Duration?
        switch status {
        case 304: code = .notModified
        case 404: code = .notFound
        case 401, 403: code = .unauthorized
        case 408, 429, 500..<600:
            code = .httpStatus
            isRetryable = true
            retryAfter = headers["Retry-After"].flatMap { RetryAfter.parse($0, now: now) }
        default: code = .httpStatus
        }
        return StrataError(
            code,
            failure.description,
            underlying: failure,
            httpStatus: status,
            isRetryable: isRetryable,
            retryAfter: retryAfter
        )
    }
}
