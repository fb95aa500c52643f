/// Counts the calls of one source or repository: what a plugin whose participation is
/// ``PluginParticipation/counts(_:timingOneIn:)`` gives for each attachment.
///
/// A counter is told about every call once it ended, by synchronous bookkeeping around the one wrapped call: no
/// closure, no task-local trail, and a clock read only for the calls that are timed. A repository read tells its
/// outcome itself (``GetRepository/getReportingOutcome(_:operation:)``), so a hit, a miss and a stale value served
/// are told apart without plugins on the sources.
///
/// ```swift
/// struct OutcomeReporter: StrataPlugin, CallCounter {
///     let record: @Sendable (_ source: String, _ outcome: CallOutcome) -> Void
///
///     func participation(in attachment: PluginAttachment) -> PluginParticipation { .counts(self) }
///
///     func count(_ call: CountedCall) { record(call.source, call.outcome) }
/// }
/// ```
public protocol CallCounter: Sendable {
    /// Counts one call that ended. Called in the task of the call; it must be quick.
    ///
    /// - Parameter call: The method, operation, outcome and error of the call, and its duration when it was timed.
    func count(_ call: CountedCall)
}

/// One finished call as a ``CallCounter`` sees it: what an integration needs to count it, nothing it would have to
/// compute per call.
public struct CountedCall: Sendable {
    /// The name of the source or repository (``PluginCall/source``).
    public let source: String

    /// The method called.
    public let method: PluginCall.Method

    /// The repository operation's name (``RepositoryOperation/name``), such as `cacheSync`; `nil` for a data source.
    public let operationName: String?

    /// How it ended.
    public let outcome: CallOutcome

    /// The error the call threw, or `nil`.
    public let error: (any Error)?

    /// How long the call took, on the continuous clock, when it was timed: one call in the participation's interval
    /// when the source or repository only has counting plugins, every call when another plugin observes it.
    public let duration: Duration?

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - source: The name of the source or repository.
    ///   - method: The method called.
    ///   - operationName: The repository operation's name, or `nil` for a data source.
    ///   - outcome: How it ended.
    ///   - error: The error it threw.
    ///   - duration: How long it took, when it was timed.
    public init(
        source: String,
        method: PluginCall.Method,
        operationName: String?,
        outcome: CallOutcome,
        error: (any Error)?,
        duration: Duration?
    ) {
        self.source = source
        self.method = method
        self.operationName = operationName
        self.outcome = outcome
        self.error = error
        self.duration = duration
    }

    /// The report of an observed call: every field of it, timed.
    ///
    /// - Parameter observed: The call, as the plugins that observe see it.
    public init(_ observed: ObservedCall) {
        self.init(
            source: observed.call.source,
            method: observed.call.method,
            operationName: observed.call.operationName,
            outcome: observed.outcome,
            error: observed.error,
            duration: observed.duration
        )
    }

    /// The duration in whole nanoseconds, for timers, when the call was timed.
    public var durationNanoseconds: Int64? { duration?.nanoseconds }

    /// The error's code when the call threw a ``StrataError``; `other` for another error; `nil` when it returned.
    public var errorCode: String? { CallOutcome.code(of: error) }
}
