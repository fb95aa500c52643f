import Strata

/// A source-specific failure, as a network module's would be: a status, whether to retry and how long to wait;
/// the core error reaches it as its cause.
struct RemoteFailureStub: RetryAdvising, ErrorSummarizing, Equatable {
    var status: Int
    var isRetryable = false
    var suggestedRetryDelay: Duration?

    var errorSummary: String { "HTTP \(status)" }
}

extension StrataError {
    /// An *unexpected response* caused by a ``RemoteFailureStub``.
    static func remote(
        _ code: Code = .unexpectedResponse,
        _ message: String,
        status: Int,
        isRetryable: Bool = false,
        delay: Duration? = nil
    ) -> StrataError {
        StrataError(
            code,
            message,
            underlying: RemoteFailureStub(status: status, isRetryable: isRetryable, suggestedRetryDelay: delay),
            isRetryable: isRetryable
        )
    }
}
