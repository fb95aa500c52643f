import Foundation
import Strata

/// The details of an HTTP response that became an error: the ``Strata/StrataError/underlying`` value of
/// every error ``HTTPClient`` maps from a status, and of a body that exceeds the size limit.
///
/// The core ``Strata/StrataError`` names no transport; this is where the HTTP is: the status, every response
/// header (repeated ones kept, in order), the beginning of the body and the `Retry-After` wait. Reach it with
/// ``Strata/StrataError/httpFailure``:
///
/// ```swift
/// do {
///     _ = try await client.send(request)
/// } catch let error as StrataError where error.code == .unexpectedResponse {
///     if error.httpFailure?.status == 422 { showValidationErrors() }
/// }
/// ```
///
/// It adopts ``Strata/RetryAdvising`` (so ``Strata/StrataError/suggestedRetryDelay`` and the retry plugin see
/// `Retry-After`) and ``Strata/ErrorSummarizing`` (so the error's one-line description says `HTTP 503`).
public struct HTTPFailure: Error, Hashable, Sendable, CustomStringConvertible, RetryAdvising, ErrorSummarizing {
    /// The status code.
    public var status: Int

    /// The response headers, every field in the order received.
    public var headers: HTTPHeaders

    /// At most the first ``HTTPFailure/bodyPrefixLimit`` bytes of the body.
    public var bodyPrefix: Data

    /// The request, as `METHOD URL`.
    public var request: String

    /// How long the server asked the caller to wait before retrying (`Retry-After`, seconds or an HTTP date),
    /// for a retryable status; `nil` when it did not say.
    public var retryAfter: Duration?

    /// Whether repeating the request may succeed: 408, 429 and 5xx.
    public var isRetryable: Bool

    /// The most body bytes kept in ``bodyPrefix`` and shown in messages: 512.
    public static let bodyPrefixLimit = 512

    /// Creates a value; the body is cut to ``bodyPrefixLimit`` bytes.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The response headers.
    ///   - body: The body, or its beginning.
    ///   - request: The request, as `METHOD URL`.
    ///   - retryAfter: The wait the server asked for.
    ///   - isRetryable: Whether repeating the request may succeed.
    public init(
        status: Int,
        headers: HTTPHeaders,
        body: Data,
        request: String,
        retryAfter: Duration? = nil,
        isRetryable: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.bodyPrefix = Data(body.prefix(Self.bodyPrefixLimit))
        self.request = request
        self.retryAfter = retryAfter
        self.isRetryable = isRetryable
    }

    /// The body prefix as text, invalid UTF-8 replaced.
    public var bodyText: String { String(decoding: bodyPrefix, as: UTF8.self) }

    /// `HTTP <status> for <request>`, then the body prefix if any.
    public var description: String {
        bodyPrefix.isEmpty ? "HTTP \(status) for \(request)" : "HTTP \(status) for \(request): \(bodyText)"
    }

    /// ``retryAfter``, for ``Strata/RetryAdvising``.
    public var suggestedRetryDelay: Duration? { retryAfter }

    /// `HTTP <status>`, for the one-line description of the error this failure causes.
    public var errorSummary: String { "HTTP \(status)" }

    /// The body prefix as text (``bodyText``), which ``description`` ends with: what a description kept beyond the
    /// call (``Strata/StrataError/descriptionWithoutSecrets``) withholds; `nil` for an empty body.
    public var answerExcerpt: String? { bodyPrefix.isEmpty ? nil : bodyText }
}

extension StrataError {
    /// The HTTP details of an error ``StrataNetwork/HTTPClient`` made from a response, or `nil`: the first
    /// ``StrataNetwork/HTTPFailure`` down the chain of causes.
    public var httpFailure: HTTPFailure? { cause(as: HTTPFailure.self) }
}
