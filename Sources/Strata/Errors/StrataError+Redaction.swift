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

/// An error other than a ``StrataError``, reported by its type alone (``StrataError/redacting(_:)``).
private struct WithheldError: Error, CustomStringConvertible {
    let typeName: String

    var description: String { "\(typeName) (message withheld)" }
}
