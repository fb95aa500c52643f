#if Tracing
    import Strata
    import Tracing

    /// A plugin that opens a span per call, through swift-distributed-tracing.
    ///
    /// Attach it to a repository and to its sources: each repository call is a span, with a child span for every
    /// source it asked (the cache, then main), and the span of an HTTP source has the request's span
    /// (``TracingTransport``) below it. Work a call leaves running after it returns — a stale-while-revalidate
    /// refresh (put the plugin in the repository's `refreshPlugins` for a span of the refresh itself), an offline
    /// replay, a stream's read after a change — is a trace of its own, whose first span links to the call's span.
    /// Such work with no span of its own over its source calls (a refresh without the plugin in `refreshPlugins`, a
    /// stream's read after a change) is one trace per source call, each linked to the call's span.
    ///
    /// ```swift
    /// let tracing = TracingPlugin()
    /// let api = UsersAPI(HTTPClient(transport: TracingTransport()))
    /// let users = CacheRepository(
    ///     main: api.plugins([tracing], name: "api"),
    ///     cache: memory.plugins([tracing], name: "memory")
    /// ).plugins([tracing], name: "users")
    /// ```
    ///
    /// A span is named `<source> <method>`, such as `users get`, and carries the attributes `strata.source`,
    /// `strata.method`, `strata.query` (the query's type), `strata.operation` (repository calls), `strata.outcome`
    /// (``Strata/CallOutcome``), `strata.origin` (the source that gave the value, when known: its name, or `cache`
    /// or `main`) and, for a failure, `strata.error.code`; a failure other than a miss is recorded on the span and
    /// sets its status to error. The error recorded is ``Strata/StrataError/redacted()`` — its code and summary
    /// (`HTTP 503`), not its message, which may quote a key, a URL with its query or the first bytes of a server's
    /// answer — unless ``includesValues`` is on.
    public struct TracingPlugin: StrataPlugin {
        /// The tracer spans are started on.
        public let tracer: any Tracer

        /// Whether a failure is recorded with its whole message; off by default.
        public let includesValues: Bool

        /// Creates the plugin.
        ///
        /// - Parameters:
        ///   - tracer: The tracer; by default the `InstrumentationSystem.tracer` bootstrapped when this is made: made
        ///     before `InstrumentationSystem.bootstrap`, the plugin has the no-op tracer and skips every call.
        ///   - includesValues: Record errors with their whole messages; off by default.
        public init(tracer: any Tracer = InstrumentationSystem.tracer, includesValues: Bool = false) {
            self.tracer = tracer
            self.includesValues = includesValues
        }

        /// Intercepts every call, unless the tracer is swift-distributed-tracing's `NoOpTracer` (the default before
        /// `InstrumentationSystem.bootstrap`): its spans record nothing and carry the caller's context unchanged, so
        /// the plugin then stays out of the calls, at no cost.
        public func participation(in attachment: PluginAttachment) -> PluginParticipation {
            tracer is NoOpTracer ? .skipped : .intercepts
        }

        /// Runs the call inside a span.
        public func intercept<R: Sendable>(
            _ call: PluginCall,
            next: @escaping @Sendable () async throws -> R
        ) async throws -> R {
            try await Self.run(call, on: tracer, includesValues: includesValues, next: next)
        }

        private static func run<T: Tracer, R: Sendable>(
            _ call: PluginCall,
            on tracer: T,
            includesValues: Bool,
            next: @escaping @Sendable () async throws -> R
        ) async throws -> R {
            // Not `withSpan`: it would record a miss as an error.
            let span = SpanStart.span("\(call.source) \(call.method)", on: tracer)
            defer { span.end() }
            span.attributes["strata.source"] = call.source
            span.attributes["strata.method"] = call.method.rawValue
            if let operation = call.operationName { span.attributes["strata.operation"] = operation }
            return try await SpanStart.within(span) {
                try await CallTrail.observe(call, next: next) { observed, _ in
                    span.attributes["strata.query"] = observed.queryKind
                    span.attributes["strata.outcome"] = "\(observed.outcome)"
                    if let origin = observed.origin { span.attributes["strata.origin"] = origin }
                    if let code = observed.errorCode { span.attributes["strata.error.code"] = code }
                    if observed.outcome == .error, let error = observed.error {
                        span.recordError(includesValues ? error : StrataError.redacting(error))
                        let message = includesValues ? observed.errorMessage : observed.redactedErrorMessage
                        span.setStatus(SpanStatus(code: .error, message: message))
                    }
                }
            }
        }
    }
#else
    #warning("StrataTracing needs the Tracing trait: depend on Strata with traits: [\"Tracing\"].")
#endif
