/// One line of the ``LoggingPlugin``: a call starting or ending, with its details.
public struct LogRecord: Sendable {
    /// Which moment of the call the record describes.
    public enum Event: String, Sendable, Hashable {
        /// The call is about to run.
        case started
        /// The call returned a value.
        case succeeded
        /// The call failed with *not found* or *not valid*.
        case missed
        /// The call failed with any other error.
        case failed
    }

    /// The importance of the record.
    public let level: LogLevel

    /// The moment of the call.
    public let event: Event

    /// The method called.
    public let method: PluginCall.Method

    /// The name of the source or repository.
    public let source: String

    /// The query, as text (one line, at most 1,024 Unicode scalars), when values are shown; else its kind, such as
    /// `KeyQuery`: a key may be a URL with a token in its query.
    public let query: String

    /// The repository operation's name; `nil` for a data source.
    public let operation: String?

    /// How long the call took; `nil` for ``Event/started``.
    public let duration: Duration?

    /// The error's code when the call failed with a ``StrataError``.
    public let errorCode: StrataError.Code?

    /// The error as one line of text when the call failed (a ``StrataError``'s ``StrataError/description``; its
    /// causes are left out — a logger that wants them calls ``StrataError/detailedDescription()``).
    public let error: String?

    /// The value returned (or written, for a start of `put`) as text — one line, at most 1,024 Unicode scalars — only
    /// when the plugin was asked to include values; `nil` otherwise.
    public let value: String?

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - level: The importance.
    ///   - event: The moment of the call.
    ///   - call: The call.
    ///   - duration: How long it took.
    ///   - error: The error it failed with.
    ///   - value: The value as text, if values are logged: shown on one line, cut at 1,024 Unicode scalars.
    ///   - showsQuery: Whether the query shows as text (one line, cut as `value`), or by its kind only.
    public init(
        level: LogLevel,
        event: Event,
        call: PluginCall,
        duration: Duration? = nil,
        error: (any Error)? = nil,
        value: String? = nil,
        showsQuery: Bool = true
    ) {
        self.level = level
        self.event = event
        self.method = call.method
        self.source = call.source
        self.query = showsQuery ? LoggedText.of(call.queryDescription) : String(describing: type(of: call.query))
        self.operation = call.operationName
        self.duration = duration
        self.errorCode = error?.strataCode
        // One line whatever the error: a StrataError's description is one line, another error's may not be.
        self.error = error.map { StrataError.oneLine(String(describing: $0)) }
        self.value = value.map(LoggedText.of)
    }

    /// A one-line summary, such as `get IdQuery<Int> on Users [cacheSync]: missed (notFound) in 2 ms` (with values
    /// shown, `get IdQuery<Int>(id: 42) on Users …`).
    public var message: String {
        var text = "\(method) \(query) on \(source)"
        if let operation { text += " [\(operation)]" }
        text += ": \(event.rawValue)"
        if let errorCode { text += " (\(errorCode))" } else if event == .failed, let error { text += " (\(error))" }
        if let duration { text += " in \(duration.millisecondsText)" }
        if let value { text += " value: \(value)" }
        return text
    }

    /// The details as key-value pairs, for structured loggers.
    public var metadata: [String: String] {
        var metadata = ["strata.method": method.rawValue, "strata.source": source, "strata.query": query]
        metadata["strata.event"] = event.rawValue
        if let operation { metadata["strata.operation"] = operation }
        if let duration { metadata["strata.duration"] = duration.millisecondsText }
        if let errorCode { metadata["strata.error.code"] = errorCode.description }
        if let error { metadata["strata.error"] = error }
        if let value { metadata["strata.value"] = value }
        return metadata
    }
}
