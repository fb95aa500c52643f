/// An error that says whether repeating the call may succeed and how long the source asked to wait first.
///
/// ``StrataError`` adopts it, and so may the source-specific error it wraps as ``StrataError/underlying`` (the
/// network module's HTTP failure, which reads `Retry-After`): ``StrataError/suggestedRetryDelay`` walks the chain
/// of causes for the first delay. ``RetryPlugin`` reads both.
///
/// ```swift
/// struct Throttled: RetryAdvising {
///     var isRetryable: Bool { true }
///     var suggestedRetryDelay: Duration? { .seconds(30) }
/// }
/// ```
public protocol RetryAdvising: Error {
    /// Whether repeating the same call may succeed.
    var isRetryable: Bool { get }

    /// How long the source asked the caller to wait before repeating the call, if it did.
    var suggestedRetryDelay: Duration? { get }
}

/// An error that adds a few words to the one-line ``StrataError/description`` of the error it causes, such as
/// `HTTP 503`.
public protocol ErrorSummarizing: Error {
    /// A short note, without the cause's whole message: `HTTP 503`.
    var errorSummary: String { get }

    /// The text the cause took from the source's answer — the first bytes of an HTTP response's body — which a
    /// description kept beyond the call leaves out (``StrataError/descriptionWithoutSecrets``); `nil` by default.
    var answerExcerpt: String? { get }
}

extension ErrorSummarizing {
    /// None: the cause holds nothing of the source's answer.
    public var answerExcerpt: String? { nil }
}

extension StrataError: RetryAdvising {
    /// How long the failing source asked to wait before a retry: the first delay a cause adopting
    /// ``RetryAdvising`` gives, down the chain of ``underlying`` errors; `nil` when none does.
    public var suggestedRetryDelay: Duration? {
        var next = underlying
        while let cause = next {
            if let strata = cause as? StrataError {
                next = strata.underlying
                continue
            }
            if let advising = cause as? any RetryAdvising, let delay = advising.suggestedRetryDelay { return delay }
            next = nil
        }
        return nil
    }

    /// The first error of this type down the chain of ``underlying`` errors (this error's cause, its cause's
    /// cause…), such as the HTTP failure behind a network source's error.
    ///
    /// - Parameter type: The type of the cause.
    /// - Returns: The cause, or `nil` when no error of the chain has the type.
    public func cause<Cause>(as type: Cause.Type = Cause.self) -> Cause? {
        var next = underlying
        while let cause = next {
            if let match = cause as? Cause { return match }
            next = (cause as? StrataError)?.underlying
        }
        return nil
    }
}
