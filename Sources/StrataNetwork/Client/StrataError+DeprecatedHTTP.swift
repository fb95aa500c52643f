import Foundation
import Strata

extension StrataError {
    /// The HTTP status of the response behind the error.
    @available(*, deprecated, message: "The core error names no transport: read httpFailure?.status")
    public var httpStatus: Int? { httpFailure?.status }

    /// How long the server asked the caller to wait before retrying.
    @available(*, deprecated, renamed: "suggestedRetryDelay")
    public var retryAfter: Duration? { suggestedRetryDelay }

    /// Creates an error with an HTTP status and a `Retry-After` wait, kept in an `HTTPFailure` cause.
    ///
    /// The status and the wait become the cause when `underlying` is `nil` (an `HTTPFailure` given as
    /// `underlying` is kept as it is); next to another cause they are dropped.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What went wrong, for a human.
    ///   - underlying: The error that caused this one.
    ///   - httpStatus: The HTTP status of the response behind the error.
    ///   - isRetryable: Whether repeating the call may succeed.
    ///   - retryAfter: How long the server asked the caller to wait.
    ///   - payload: A value the failing call still had at hand.
    ///   - file: The source file creating the error; leave the default.
    ///   - line: The source line creating the error; leave the default.
    @available(*, deprecated, message: "Give the HTTP details as an HTTPFailure underlying error")
    public init(
        _ code: Code,
        _ message: String,
        underlying: (any Error)? = nil,
        httpStatus: Int?,
        isRetryable: Bool? = nil,
        retryAfter: Duration? = nil,
        payload: (any Sendable)? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        let cause =
            underlying
            ?? httpStatus.map {
                HTTPFailure(
                    status: $0,
                    headers: HTTPHeaders(),
                    body: Data(),
                    request: "",
                    retryAfter: retryAfter,
                    isRetryable: isRetryable ?? false
                )
            }
        self.init(code, message, underlying: cause, isRetryable: isRetryable, payload: payload, file: file, line: line)
    }
}

extension StrataError.Code {
    /// The code of a response with a status that is neither success nor mapped.
    @available(*, deprecated, renamed: "unexpectedResponse")
    public static var httpStatus: StrataError.Code { .unexpectedResponse }

    /// The code earlier releases gave a 304; no error has it now.
    @available(
        *,
        deprecated,
        message: """
            A 304 is a value, not an error: HTTPClient.send(_:ifModifiedSince:) answers .notModified, and \
            GetDataSource.getIfModified(_:since:) too; no error has this code
            """
    )
    public static var notModified: StrataError.Code { .retiredNotModified }
}
