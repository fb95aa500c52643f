#if Metrics
    import Metrics
    import Strata

    /// A plugin that counts calls by outcome and times them, through swift-metrics.
    ///
    /// Attach it to a repository, whose reads are told apart as hits, misses and stale values served, and to its
    /// sources, to count and time their calls too:
    ///
    /// ```swift
    /// let metrics = SwiftMetricsPlugin()
    /// let users = CacheRepository(
    ///     main: api.plugins([metrics], name: "api"),
    ///     cache: memory.plugins([metrics], name: "memory")
    /// ).plugins([metrics], name: "users")
    /// ```
    ///
    /// | metric | kind | dimensions |
    /// |---|---|---|
    /// | `strata_calls_total` | counter | `source`, `method`, `operation`, `outcome`, `error_code` |
    /// | `strata_call_duration` | timer (nanoseconds) | `source`, `method`, `operation` |
    ///
    /// `source` is the name given to `plugins(_:name:)`; `method` is `get`, `getAll`, `put`, `putAll` or `delete`;
    /// `operation` the repository operation (`cacheSync`, …) or `none` for a data source; `outcome` is `hit`,
    /// `miss`, `staleServed`, `notValid`, `success` or `error` (``Strata/CallOutcome``); `error_code` the
    /// ``Strata/StrataError/Code`` of an error (`other` for another error), `none` otherwise. Every series has every
    /// dimension, as Prometheus requires. Handlers are made once per series and kept per source or repository; a
    /// call that returned goes straight to its series (each source or repository finds it once per method, operation
    /// and outcome), one that threw costs a search of that source's few series, without a lock; then the handler's
    /// own work.
    ///
    /// Every call is counted; one call in `timingInterval` (16 by default) is timed, so `strata_call_duration` holds
    /// a sample of the latencies, not one per call: count calls with `strata_calls_total`. A repository's reads
    /// report their own outcome (``Strata/GetRepository/getReportingOutcome(_:operation:)``), so the plugin on a
    /// `CacheRepository` tells hits from misses without plugins on its sources.
    public final class SwiftMetricsPlugin: StrataPlugin {
        /// The metric names, for dashboards and tests.
        public enum Label: Sendable {
            /// Calls by source, method, operation, outcome and error code.
            public static let calls = "strata_calls_total"
            /// Call durations by source, method and operation.
            public static let duration = "strata_call_duration"
        }

        private let factory: any MetricsFactory
        private let timingInterval: Int
        private let attachments = Locked<[String: AttachmentSeries]>([:])

        /// Creates the plugin.
        ///
        /// - Parameters:
        ///   - factory: Where the metrics go; by default the `MetricsSystem.factory` bootstrapped when this is made
        ///     (make it after `MetricsSystem.bootstrap`).
        ///   - timingInterval: One call in how many is timed, per source or repository (16 by default; 1 times
        ///     every call). Every call is counted either way; timing a call reads the clock twice, which costs more
        ///     than a memory-cache hit. When another plugin on the same source or repository observes every call,
        ///     every call is timed.
        public init(factory: any MetricsFactory = MetricsSystem.factory, timingInterval: Int = 16) {
            self.factory = factory
            self.timingInterval = timingInterval
        }

        /// Counts every call, with a counter of its own for each source or repository.
        public func participation(in attachment: PluginAttachment) -> PluginParticipation {
            .counts(series(for: attachment), timingOneIn: timingInterval)
        }

        /// The series of `attachment`, made the first time it is asked: a plugin attached twice under one name, or
        /// called as a middleware (which asks per call), counts into the same series.
        private func series(for attachment: PluginAttachment) -> AttachmentSeries {
            attachments.withLock { attachments in
                if let found = attachments[attachment.name] { return found }
                let made = AttachmentSeries(source: attachment.name, factory: factory)
                attachments[attachment.name] = made
                return made
            }
        }
    }

    /// The series of one source or repository: made when a call first needs one, then found without a lock.
    private final class AttachmentSeries: ReportBindingCounter {
        /// The handlers of one series: the calls with one method, operation, outcome and error code. A class, so that
        /// finding one copies nothing.
        final class Series: ReturnedCallSeries {
            let method: PluginCall.Method
            let operation: String
            let outcome: CallOutcome
            let errorCode: String
            let calls: Counter
            let duration: Metrics.Timer
            /// The operation's name as a call gives it (`nil` for a data source), and whether the series counts calls
            /// that returned: what a returned call is matched by, without building the dimensions' strings.
            let operationName: String?
            let returned: Bool

            init(
                method: PluginCall.Method,
                operation: String,
                outcome: CallOutcome,
                errorCode: String,
                calls: Counter,
                duration: Metrics.Timer
            ) {
                self.method = method
                self.operation = operation
                self.outcome = outcome
                self.errorCode = errorCode
                self.calls = calls
                self.duration = duration
                operationName = operation == "none" ? nil : operation
                returned = errorCode == "none"
            }

            func matches(_ method: PluginCall.Method, _ operation: String, _ outcome: CallOutcome, _ code: String)
                -> Bool
            {
                self.method == method && self.outcome == outcome && self.operation == operation
                    && errorCode == code
            }

            /// Counts a call of this series that returned, which the chain calls directly for the calls of its
            /// report (``counter(forEvery:)``).
            func countReturned(nanoseconds: Int64?) {
                calls.increment()
                if let nanoseconds { duration.recordNanoseconds(nanoseconds) }
            }

            /// Counts the call, and records its duration when it was timed.
            func record(_ call: CountedCall) {
                countReturned(nanoseconds: call.durationNanoseconds)
            }
        }

        /// The series made so far, newest first: a persistent list, so that the table a new series replaces is the
        /// new one's tail, and every table ever published costs one node (``PublishedSnapshot`` keeps them all).
        final class Table: Sendable {
            let newest: Series?
            let older: Table?

            /// ``newest`` and ``older`` as unmanaged references, which a walk copies without retaining (an atomic
            /// retain and release per node, which also stall the reads around them); the two above keep them alive.
            private let newestReference: Unmanaged<Series>?
            private let olderReference: Unmanaged<Table>?

            init(_ newest: Series? = nil, older: Table? = nil) {
                self.newest = newest
                self.older = older
                newestReference = newest.map { .passUnretained($0) }
                olderReference = older.map { .passUnretained($0) }
            }

            /// The series of calls with these method, operation, outcome and error code, if the table has one.
            func find(_ method: PluginCall.Method, _ operation: String, _ outcome: CallOutcome, _ code: String)
                -> Series?
            {
                withSeries({ $0.matches(method, operation, outcome, code) }, { $0 })
            }

            /// Counts the call in its series, if the table has it.
            func count(_ call: CountedCall, _ operation: String, _ code: String) -> Bool {
                withSeries({ $0.matches(call.method, operation, call.outcome, code) }, { $0.record(call) }) != nil
            }

            /// Counts a call that returned in its series, if the table has it, matched by the call's own fields: no
            /// string is made or copied.
            func countReturned(_ call: CountedCall) -> Bool {
                withSeries(
                    {
                        $0.returned && $0.method == call.method && $0.outcome == call.outcome
                            && $0.operationName == call.operationName
                    },
                    { $0.record(call) }
                ) != nil
            }

            /// Runs `body` with the first series that `matches`, if the table has one.
            ///
            /// The nodes are walked unretained: each is kept alive by the one before it, the first by the caller's
            /// reference. A walk that holds each node strongly retains and releases every node it passes.
            private func withSeries<Result>(
                _ matches: (Series) -> Bool,
                _ body: (Series) -> Result
            ) -> Result? {
                var node: Unmanaged<Table>? = .passUnretained(self)
                while let current = node {
                    let found = current._withUnsafeGuaranteedRef { table -> Result? in
                        if let newest = table.newestReference {
                            let found = newest._withUnsafeGuaranteedRef { series in
                                matches(series) ? body(series) : nil
                            }
                            if let found { return found }
                        }
                        node = table.olderReference
                        return nil
                    }
                    if let found { return found }
                }
                return nil
            }
        }

        private let source: String
        private let factory: any MetricsFactory
        private let table = PublishedSnapshot(Table())

        init(source: String, factory: any MetricsFactory) {
            self.source = source
            self.factory = factory
        }

        /// The series of every call reported with `report`: the chain hands them to it directly.
        func counter(forEvery report: CountedCall) -> any ReturnedCallSeries {
            series(report.method, report.operationName ?? "none", report.outcome, "none")
        }

        func count(_ call: CountedCall) {
            if call.error == nil, table.read({ $0.countReturned(call) }) { return }
            let operation = call.operationName ?? "none"
            let code = call.error == nil ? "none" : call.errorCode ?? "none"
            if table.read({ $0.count(call, operation, code) }) { return }
            series(call.method, operation, call.outcome, code).record(call)
        }

        private func series(
            _ method: PluginCall.Method,
            _ operation: String,
            _ outcome: CallOutcome,
            _ code: String
        ) -> Series {
            if let found = table.read({ $0.find(method, operation, outcome, code) }) { return found }
            return table.update { table in
                if let found = table.find(method, operation, outcome, code) { return (nil, found) }
                let call = [("source", source), ("method", method.rawValue), ("operation", operation)]
                let made = Series(
                    method: method,
                    operation: operation,
                    outcome: outcome,
                    errorCode: code,
                    calls: Counter(
                        label: SwiftMetricsPlugin.Label.calls,
                        dimensions: call + [("outcome", "\(outcome)"), ("error_code", code)],
                        factory: factory
                    ),
                    duration: Metrics.Timer(
                        label: SwiftMetricsPlugin.Label.duration,
                        dimensions: call,
                        factory: factory
                    )
                )
                return (Table(made, older: table), made)
            }
        }
    }
#else
    #warning("StrataMetrics needs the Metrics trait: depend on Strata with traits: [\"Metrics\"].")
#endif
