#if Tracing
    import Strata
    import Tracing

    /// Where Strata's spans start: under the task's span, or, in work a call left running after it returned (a
    /// stale-while-revalidate refresh, an offline replay), as the root of a trace of their own.
    ///
    /// Such work outlives the call's span. Its first span of Strata's starts a new trace with a link to the call's
    /// span, so a trace viewer shows what started it without hanging it under a span that has ended; the spans it
    /// opens inside are its children, as usual. The new trace starts from an empty context: the call's baggage is
    /// not carried into it. A span the app opens itself in that work before any of Strata's (around its main
    /// source's read, say) is still a child of the call's span, and Strata's first span under it starts the new
    /// trace, linked to the app's span.
    enum SpanStart {
        /// Starts a span on `tracer` named `name`.
        ///
        /// - Parameters:
        ///   - name: The span's name.
        ///   - tracer: The tracer.
        ///   - kind: The span's kind.
        static func span<T: Tracer>(_ name: String, on tracer: T, ofKind kind: SpanKind = .internal) -> T.Span {
            let context = ServiceContext.current
            guard CallContext.isLeftRunning, let context else {
                return tracer.startSpan(name, context: context ?? .topLevel, ofKind: kind)
            }
            let span = tracer.startSpan(name, context: .topLevel, ofKind: kind)
            span.addLink(SpanLink(context: context, attributes: [:]))
            return span
        }

        /// Runs `body` inside `span`: the spans it starts are its children.
        ///
        /// - Parameters:
        ///   - span: The span ``span(_:on:ofKind:)`` started.
        ///   - body: The work.
        static func within<S: Span, R>(_ span: S, _ body: () async throws -> R) async throws -> R {
            try await ServiceContext.withValue(span.context) {
                try await CallContext.$isLeftRunning.withValue(false) { try await body() }
            }
        }
    }
#endif
