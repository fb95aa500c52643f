#if Metrics
    import Metrics
    import Strata

    /// A plugin that counts calls by outcome and times them, through swift-metrics.
    ///
    /// Attach it to a repository and to its sources, so that a repository's calls are told apart as hits, misses and
    /// stale values served (``Strata/CallTrail``):
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
    /// dimension, as Prometheus requires. Handlers are made once per series and kept, so a call costs a dictionary
    /// lookup under a lock and the handler's own work.
    public final class SwiftMetricsPlugin: StrataPlugin {
        /// The metric names, for dashboards and tests.
        public enum Label: Sendable {
            /// Calls by source, method, operation, outcome and error code.
            public static let calls = "strata_calls_total"
            /// Call durations by source, method and operation.
            public static let duration = "strata_call_duration"
        }

        private struct SeriesKey: Hashable {
            let source: String
            let method: PluginCall.Method
            let operation: String
            let outcome: CallOutcome
            let errorCode: String

            /// Hashes the method, the outcome and the lengths of the names, not their text: a plugin has a few
            /// dozen series, told apart by equality, and hashing three strings per call was most of its cost.
            func hash(into hasher: inout Hasher) {
                hasher.combine(method)
                hasher.combine(outcome)
                hasher.combine(source.utf8.count &+ operation.utf8.count &<< 16 &+ errorCode.utf8.count &<< 32)
            }
        }

        private let factory: any MetricsFactory
        private let series = Locked<[SeriesKey: (calls: Counter, duration: Metrics.Timer)]>([:])

        /// Creates the plugin.
        ///
        /// - Parameter factory: Where the metrics go; the bootstrapped `MetricsSystem.factory` by default.
        public init(factory: any MetricsFactory = MetricsSystem.factory) {
            self.factory = factory
        }

        /// Observes every call.
        public func participation(in attachment: PluginAttachment) -> PluginParticipation { .observes }

        /// Counts the call's outcome and records its duration.
        public func callDidFinish(_ observed: ObservedCall, result: (any Sendable)?) {
            let handlers = handlers(for: observed)
            handlers.calls.increment()
            handlers.duration.recordNanoseconds(observed.durationNanoseconds)
        }

        private func handlers(for observed: ObservedCall) -> (calls: Counter, duration: Metrics.Timer) {
            let key = SeriesKey(
                source: observed.call.source,
                method: observed.call.method,
                operation: observed.call.operationName ?? "none",
                outcome: observed.outcome,
                errorCode: observed.errorCode ?? "none"
            )
            return series.withLock { series in
                if let found = series[key] { return found }
                let call = [("source", key.source), ("method", key.method.rawValue), ("operation", key.operation)]
                let made = (
                    calls: Counter(
                        label: Label.calls,
                        dimensions: call + [("outcome", "\(key.outcome)"), ("error_code", key.errorCode)],
                        factory: factory
                    ),
                    duration: Metrics.Timer(label: Label.duration, dimensions: call, factory: factory)
                )
                series[key] = made
                return made
            }
        }
    }
#else
    #warning("StrataMetrics needs the Metrics trait: depend on Strata with traits: [\"Metrics\"].")
#endif
