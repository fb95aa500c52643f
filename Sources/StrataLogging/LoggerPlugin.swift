#if Logging
    import Logging
    import Strata

    /// A plugin that writes one swift-log line per call: what was called, how it ended, where the value came from
    /// and how long it took, as metadata a log pipeline can index.
    ///
    /// Attach it to a repository: a ``Strata/CacheRepository`` says whether each value came from its cache or from
    /// main, which the line carries as its origin (`cache`, `main`):
    ///
    /// ```swift
    /// let logging = LoggerPlugin(logger: Logger(label: "users"))
    /// let users = CacheRepository(main: api, cache: memory).plugins([logging], name: "users")
    /// ```
    ///
    /// Attach it to the sources too for a line per source call (at ``sourceLevel``) and for origins by the sources'
    /// names (``Strata/CallTrail``); each plugged source adds a little to every call, even where no line is written:
    ///
    /// ```swift
    /// let users = CacheRepository(
    ///     main: api.plugins([logging], name: "api"),
    ///     cache: memory.plugins([logging], name: "memory")
    /// ).plugins([logging], name: "users")
    /// ```
    ///
    /// A repository call is logged at ``level`` (`debug` by default), a call of a source at ``sourceLevel`` (`trace`),
    /// and a call that failed with anything but a miss at ``failureLevel`` (`error`). The metadata:
    ///
    /// | key | value |
    /// |---|---|
    /// | `strata.source` | the name given to `plugins(_:name:)` |
    /// | `strata.method` | `get`, `getAll`, `put`, `putAll`, `delete` |
    /// | `strata.query` | the query's type, such as `IdQuery<Int>` (its values only with ``includesValues``) |
    /// | `strata.operation` | the repository operation, such as `cacheSync`; absent for a source |
    /// | `strata.origin` | the source that gave the value, when known: its name, or `cache` or `main` |
    /// | `strata.outcome` | `hit`, `miss`, `staleServed`, `notValid`, `success`, `error` |
    /// | `strata.duration_ms` | the duration in milliseconds |
    /// | `strata.error.code` | the ``Strata/StrataError/Code``, or `other`, when the call failed |
    /// | `strata.error` | the error in one line, when the call failed: its code and summary (`HTTP 503`), its whole message only with ``includesValues`` |
    ///
    /// Values, bodies and query contents are left out unless ``includesValues`` is on — error messages too, which
    /// may quote a key, a URL with its query or the first bytes of a server's answer. The logger's level is read
    /// once, when the plugin is attached (``participation(in:)``): set it before calling `plugins(_:name:)`. Where the
    /// logger writes none of the plugin's lines a call that returns costs nothing (the source or repository is called
    /// directly), and a failure line carries no duration or origin.
    public struct LoggerPlugin: StrataPlugin {
        /// The logger lines go to.
        public let logger: Logger

        /// The level of a repository call's line.
        public let level: Logger.Level

        /// The level of a data source call's line.
        public let sourceLevel: Logger.Level

        /// The level of a call that failed with anything but *not found* or *not valid*.
        public let failureLevel: Logger.Level

        /// Whether lines carry the query's description and the values read and written (off by default).
        public let includesValues: Bool

        /// Creates the plugin.
        ///
        /// - Parameters:
        ///   - logger: The logger lines go to; its level decides what is written.
        ///   - level: The level of a repository call's line; `debug` by default.
        ///   - sourceLevel: The level of a data source call's line; `trace` by default.
        ///   - failureLevel: The level of a failed call's line; `error` by default.
        ///   - includesValues: Log the query's description, the values and the messages of errors; off by default.
        public init(
            logger: Logger,
            level: Logger.Level = .debug,
            sourceLevel: Logger.Level = .trace,
            failureLevel: Logger.Level = .error,
            includesValues: Bool = false
        ) {
            self.logger = logger
            self.level = level
            self.sourceLevel = sourceLevel
            self.failureLevel = failureLevel
            self.includesValues = includesValues
        }

        /// Observes the calls whose lines the logger writes; only failures when it writes no other line; nothing when
        /// it writes none. Decided from the logger's level when the plugin is attached.
        ///
        /// On a data source the plugin also observes when only the repository's lines are written: the source's step
        /// tells a repository line where its value came from.
        public func participation(in attachment: PluginAttachment) -> PluginParticipation {
            let lineLevel = attachment.kind == .repository ? level : sourceLevel
            if logger.logLevel <= max(lineLevel, level) { return .observes }
            return logger.logLevel <= failureLevel ? .observesFailures : .skipped
        }

        /// Writes the call's line, or only a failure's when the call's own level is not written.
        public func callDidFinish(_ observed: ObservedCall, result: (any Sendable)?) {
            let call = observed.call
            let lineLevel = call.operation == nil ? sourceLevel : level
            guard logger.logLevel <= lineLevel else {
                if let error = observed.error { callDidFail(call, error: error) }
                return
            }
            let failed = observed.outcome == .error
            logger.log(
                level: failed ? max(failureLevel, lineLevel) : lineLevel,
                "\(call.method) \(call.source): \(observed.outcome)",
                metadata: metadata(observed, result: result)
            )
        }

        /// Writes a failure's line at ``failureLevel`` — without duration or origin, which were not measured — unless
        /// the call missed.
        public func callDidFail(_ call: PluginCall, error: any Error) {
            guard logger.logLevel <= failureLevel, !((error as? StrataError)?.isMiss ?? false) else { return }
            let observed = ObservedCall(call: call, outcome: .error, origin: nil, error: error, duration: .zero)
            var metadata = metadata(observed, result: nil)
            metadata["strata.duration_ms"] = nil
            logger.log(level: failureLevel, "\(call.method) \(call.source): error", metadata: metadata)
        }
    }
#else
    #warning("StrataLogging needs the Logging trait: depend on Strata with traits: [\"Logging\"].")
#endif
