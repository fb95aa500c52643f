/// A plugin that reports every call to a sink you provide: start, success, miss or failure, with the
/// duration.
///
/// Records below ``minimumLevel`` are not built at all. By default the level of each event is
/// ``Levels-swift.struct``: start `trace`, success and miss `debug`, failure `error`. Values are never
/// logged unless ``includesValues`` is on: a cached token or a user's profile should not end up in logs
/// by accident; nor is a query's text (its kind is, such as `KeyQuery`: a key may be a URL with a token in its query),
/// nor an error's message, which may quote a key, a URL with its query or the first bytes of a server's answer
/// (``Strata/StrataError/redacted()``: its code and summary, such as `HTTP 503`, are logged). What is logged is one
/// line, each query or value cut at 1,024 Unicode scalars.
///
/// ```swift
/// let users = UsersAPI(client).plugins([
///     LoggingPlugin(minimumLevel: .debug) { record in print(record.message) }
/// ])
/// ```
public struct LoggingPlugin: StrataPlugin {
    /// The level given to each kind of event.
    public struct Levels: Sendable, Hashable {
        /// The level of a call that starts.
        public var started: LogLevel
        /// The level of a call that returns.
        public var succeeded: LogLevel
        /// The level of a call that fails with *not found* or *not valid*.
        public var missed: LogLevel
        /// The level of a call that fails otherwise.
        public var failed: LogLevel

        /// Creates levels.
        ///
        /// - Parameters:
        ///   - started: `trace` by default.
        ///   - succeeded: `debug` by default.
        ///   - missed: `debug` by default.
        ///   - failed: `error` by default.
        public init(
            started: LogLevel = .trace,
            succeeded: LogLevel = .debug,
            missed: LogLevel = .debug,
            failed: LogLevel = .error
        ) {
            self.started = started
            self.succeeded = succeeded
            self.missed = missed
            self.failed = failed
        }
    }

    /// The least important level that is logged.
    public let minimumLevel: LogLevel

    /// The level given to each kind of event.
    public let levels: Levels

    /// Whether records carry the values read and written (off by default).
    public let includesValues: Bool

    private let clock: any WallClock
    private let sink: @Sendable (LogRecord) -> Void

    /// Creates the plugin.
    ///
    /// - Parameters:
    ///   - minimumLevel: The least important level logged; `debug` by default.
    ///   - levels: The level of each kind of event.
    ///   - includesValues: Put the values read and written, the queries' text and the messages of errors into
    ///     records; off by default.
    ///   - clock: What durations are measured on.
    ///   - sink: Receives each record; it must be quick and thread-safe.
    public init(
        minimumLevel: LogLevel = .debug,
        levels: Levels = Levels(),
        includesValues: Bool = false,
        clock: any WallClock = SystemClock(),
        sink: @escaping @Sendable (LogRecord) -> Void
    ) {
        self.minimumLevel = minimumLevel
        self.levels = levels
        self.includesValues = includesValues
        self.clock = clock
        self.sink = sink
    }

    /// Intercepts calls when a start or a success is logged; when only misses and failures are, observes failures
    /// alone (a call that returns then costs nothing, and a counting plugin beside this one keeps its counting path;
    /// such a record has no duration); when nothing is, skips every call.
    public func participation(in attachment: PluginAttachment) -> PluginParticipation {
        if levels.started >= minimumLevel || levels.succeeded >= minimumLevel { return .intercepts }
        return levels.missed >= minimumLevel || levels.failed >= minimumLevel ? .observesFailures : .skipped
    }

    /// Logs a miss or a failure, when only those are logged (``participation(in:)``).
    public func callDidFail(_ call: PluginCall, error: any Error) {
        logFailure(call, error, duration: nil)
    }

    /// Logs the start, runs the call, logs its outcome.
    public func intercept<R: Sendable>(
        _ call: PluginCall,
        next: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        if levels.started >= minimumLevel {
            let value = includesValues ? call.value.map { String(describing: $0) } : nil
            sink(
                LogRecord(level: levels.started, event: .started, call: call, value: value, showsQuery: includesValues)
            )
        }
        let stopwatch = PluginStopwatch(clock: clock)
        do {
            let result = try await next()
            if levels.succeeded >= minimumLevel {
                let value = includesValues ? String(describing: result) : nil
                let duration = stopwatch.elapsed()
                sink(
                    LogRecord(
                        level: levels.succeeded,
                        event: .succeeded,
                        call: call,
                        duration: duration,
                        value: value,
                        showsQuery: includesValues
                    )
                )
            }
            return result
        } catch {
            logFailure(call, error, duration: stopwatch.elapsed())
            throw error
        }
    }

    /// Logs a call that failed with `error` (a miss at ``Levels-swift.struct/missed``), after `duration` when known,
    /// unless its level is below ``minimumLevel``.
    private func logFailure(_ call: PluginCall, _ error: any Error, duration: Duration?) {
        let isMiss = (error as? StrataError)?.isMiss ?? false
        let level = isMiss ? levels.missed : levels.failed
        guard level >= minimumLevel else { return }
        // An error's message may hold a key, a URL's query or a server's words: values, withheld with them.
        let reported = includesValues ? error : StrataError.redacting(error)
        sink(
            LogRecord(
                level: level,
                event: isMiss ? .missed : .failed,
                call: call,
                duration: duration,
                error: reported,
                showsQuery: includesValues
            )
        )
    }
}
