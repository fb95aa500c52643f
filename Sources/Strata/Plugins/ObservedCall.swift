/// One finished call as the observability integrations report it: the call, its outcome and origin, its error and
/// how long it took. Made by ``CallTrail/observe(_:next:report:)``.
public struct ObservedCall: Sendable {
    /// The call.
    public let call: PluginCall

    /// How it ended.
    public let outcome: CallOutcome

    /// The name of the source that gave the value: the source itself for a data source call; for a repository call,
    /// the source the ``CallTrail`` saw answer, or, with no plugin on that source, `cache` or `main` as a
    /// ``CacheRepository`` says; `nil` when unknown (another repository, no plugin on its sources) or when nothing
    /// was read.
    public let origin: String?

    /// The error the call threw, or `nil`.
    public let error: (any Error)?

    /// How long the call took, on the continuous clock.
    public let duration: Duration

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - call: The call.
    ///   - outcome: How it ended.
    ///   - origin: The source that gave the value, if known.
    ///   - error: The error it threw.
    ///   - duration: How long it took.
    public init(call: PluginCall, outcome: CallOutcome, origin: String?, error: (any Error)?, duration: Duration) {
        self.call = call
        self.outcome = outcome
        self.origin = origin
        self.error = error
        self.duration = duration
    }

    /// The kind of query, such as `IdQuery<Int>`: its type's name, never the values it holds.
    public var queryKind: String { String(describing: type(of: call.query)) }

    /// The error's code when the call threw a ``StrataError``; `other` for another error; `nil` when it returned.
    public var errorCode: String? { CallOutcome.code(of: error) }

    /// The duration in whole nanoseconds, for timers.
    public var durationNanoseconds: Int64 { duration.nanoseconds }

    /// The error as one line of text, for a log line; `nil` when the call returned.
    public var errorMessage: String? { error.map { StrataError.oneLine(String(describing: $0)) } }

    /// The error as one line of text without what its message may hold of the call's data
    /// (``StrataError/redacting(_:)``): its code and summary, such as
    /// `StrataError.unexpectedResponse: HTTP 503`; `nil` when the call returned.
    public var redactedErrorMessage: String? {
        error.map { StrataError.oneLine(String(describing: StrataError.redacting($0))) }
    }
}
