#if Metrics
    import Metrics
    import Strata

    /// Reports a store's evictions by reason, and its entries and bytes as gauges, through swift-metrics.
    ///
    /// Give it to a store as its eviction observer:
    ///
    /// ```swift
    /// var configuration = MemoryDataSource<Data>.Configuration(countLimit: 1_000, costLimit: 64 << 20)
    /// configuration.evictionObserver = StoreMetrics(store: "avatars")
    /// ```
    ///
    /// | metric | kind | dimensions |
    /// |---|---|---|
    /// | `strata_store_evictions_total` | counter | `store`, `reason` (`countLimit`, `sizeLimit`, `expired`, `purged`) |
    /// | `strata_store_entries` | gauge | `store` |
    /// | `strata_store_bytes` | gauge | `store` (not for a store that does not count bytes) |
    ///
    /// The gauges move with each eviction; call ``record(_:)`` with a store's usage to update them at other times.
    public final class StoreMetrics: StoreEvictionObserver {
        /// The metric names, for dashboards and tests.
        public enum Label: Sendable {
            /// Entries removed by the store on its own, by reason.
            public static let evictions = "strata_store_evictions_total"
            /// The store's entries.
            public static let entries = "strata_store_entries"
            /// The store's bytes.
            public static let bytes = "strata_store_bytes"
        }

        /// The store's name, the `store` dimension.
        public let store: String

        private let factory: any MetricsFactory
        /// One counter per reason, made once: a store reports evictions under its own lock, entry by entry.
        private let evictions: [StoreEviction.Reason: Counter]
        private let entries: Gauge
        /// Made at the first usage that counts bytes: a backend registers a series when it is made, and a store that
        /// counts none would show 0 bytes for ever.
        private let bytes = Locked<Gauge?>(nil)

        /// Creates the observer.
        ///
        /// - Parameters:
        ///   - store: The store's name, the `store` dimension.
        ///   - factory: Where the metrics go; by default the `MetricsSystem.factory` bootstrapped when this is made
        ///     (make it after `MetricsSystem.bootstrap`).
        public init(store: String, factory: any MetricsFactory = MetricsSystem.factory) {
            self.store = store
            self.factory = factory
            entries = Gauge(label: Label.entries, dimensions: [("store", store)], factory: factory)
            let reasons: [StoreEviction.Reason] = [.countLimit, .sizeLimit, .expired, .purged]
            evictions = Dictionary(
                uniqueKeysWithValues: reasons.map { ($0, Self.counter(store: store, reason: $0, factory: factory)) }
            )
        }

        /// Counts the eviction and moves the gauges.
        public func storeDidEvict(_ eviction: StoreEviction) {
            counter(eviction.reason).increment(by: Int64(eviction.count))
            record(eviction.usage)
        }

        /// Sets the gauges to a store's usage.
        ///
        /// - Parameter usage: What the store holds, such as a memory store's count and total cost.
        public func record(_ usage: StoreUsage) {
            entries.record(Int64(usage.count))
            guard let stored = usage.bytes else { return }
            let gauge = bytes.withLock { gauge in
                if let gauge { return gauge }
                let made = Gauge(label: Label.bytes, dimensions: [("store", store)], factory: factory)
                gauge = made
                return made
            }
            gauge.record(Int64(stored))
        }

        private func counter(_ reason: StoreEviction.Reason) -> Counter {
            evictions[reason] ?? Self.counter(store: store, reason: reason, factory: factory)
        }

        /// The eviction counter of `store` for `reason`.
        private static func counter(
            store: String,
            reason: StoreEviction.Reason,
            factory: any MetricsFactory
        ) -> Counter {
            Counter(label: Label.evictions, dimensions: [("store", store), ("reason", "\(reason)")], factory: factory)
        }
    }
#endif
