import Foundation

extension StrataError {
    /// This error without what its message and causes may hold of the call's data — a key, a URL with its query,
    /// the first bytes of a server's answer: the same code, retryability and source location, and as its message
    /// only the summary a cause gives and the wait it asked for (`HTTP 503, retry after 2.0 seconds`).
    ///
    /// What an observability plugin reports when values are kept out of its output:
    ///
    /// ```swift
    /// print(error.redacted())   // StrataError.unexpectedResponse: HTTP 503, retry after 2.0 seconds
    /// ```
    public func redacted() -> StrataError {
        let details = summaryDetails
        let message = details.isEmpty ? "(message withheld)" : details.joined(separator: ", ")
        return StrataError(code, message, isRetryable: isRetryable, file: file, line: line)
    }

    /// `error` made safe to report where values are kept out: a ``StrataError`` ``redacted()``, any other error
    /// replaced by one that names its type only.
    ///
    /// - Parameter error: The error a call threw.
    public static func redacting(_ error: any Error) -> any Error {
        if let error = error as? StrataError { return error.redacted() }
        return WithheldError(typeName: String(reflecting: type(of: error)))
    }

    /// What ``description`` adds after the message: the first ``ErrorSummarizing`` cause's summary and the wait the
    /// error asks for.
    var summaryDetails: [String] {
        var details: [String] = []
        if let summary = cause(as: (any ErrorSummarizing).self)?.errorSummary { details.append(summary) }
        if let delay = suggestedRetryDelay { details.append("retry after \(delay)") }
        return details
    }
}

extension StrataError {
    /// This error's one-line ``description`` without what its message may hold of a caller's secrets or of a
    /// server's answer: for a record kept beyond the call, such as an offline outbox's on disk.
    ///
    /// The code, the summary and the message stay — unlike ``redacted()``, which keeps no message — but each URL in the
    /// message loses its user, password, query and fragment (where a token such as `?access_token=…` travels), and
    /// the text a cause took from the source's answer (``ErrorSummarizing/answerExcerpt``: the first bytes of an HTTP
    /// response's body) is withheld:
    ///
    /// ```swift
    /// print(error.descriptionWithoutSecrets)
    /// // StrataError.unexpectedResponse: HTTP 503 for PUT https://api.example/notes/a: (answer withheld) (HTTP 503)
    /// ```
    public var descriptionWithoutSecrets: String {
        var message = message
        for excerpt in answerExcerpts {
            for form in Set([excerpt, Self.oneLine(excerpt)]) {
                message = message.replacingOccurrences(of: ": " + form, with: ": (answer withheld)")
            }
        }
        return description(ofMessage: message.withoutURLSecrets)
    }

    /// `error`'s description made safe to keep: a ``StrataError``'s ``descriptionWithoutSecrets``, any other error's
    /// type and one-line description without its URLs' users, passwords, queries and fragments.
    ///
    /// - Parameter error: The error a call threw.
    public static func describingWithoutSecrets(_ error: any Error) -> String {
        if let error = error as? StrataError { return error.descriptionWithoutSecrets }
        return "\(String(reflecting: type(of: error))): \(oneLine(String(describing: error).withoutURLSecrets))"
    }

    /// The text the causes down the chain took from the source's answer (``ErrorSummarizing/answerExcerpt``).
    private var answerExcerpts: [String] {
        var excerpts: [String] = []
        var next = underlying
        while let cause = next {
            if let excerpt = (cause as? any ErrorSummarizing)?.answerExcerpt, !excerpt.isEmpty {
                excerpts.append(excerpt)
            }
            next = (cause as? StrataError)?.underlying
        }
        return excerpts
    }
}

/// An error other than a ``StrataError``, reported by its type alone (``StrataError/redacting(_:)``).
private struct WithheldError: Error, CustomStringConvertible {
    let typeName: String

    var description: String { "\(typeName) (message withheld)" }
}
