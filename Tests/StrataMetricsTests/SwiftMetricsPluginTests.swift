#if Metrics
    import Foundation
    import MetricsTestKit
    import Strata
    import StrataMemory
    import StrataMetrics
    import StrataObservabilityTestSupport
    import Testing

    /// `.cacheSync` under another name.
    private struct NamedOperation: RepositoryOperation {
        let name: String

        var plan: OperationPlan { CacheSyncOperation().plan }
    }

    struct SwiftMetricsPluginTests {
        private let metrics = TestMetrics()

        private func calls(
            _ source: String,
            _ operation: String,
            _ outcome: String,
            _ code: String = "none",
            method: String = "get"
        ) -> Int64 {
            metrics.counterTotal(
                label: SwiftMetricsPlugin.Label.calls,
                dimensions: [
                    ("source", source), ("method", method), ("operation", operation), ("outcome", outcome),
                    ("error_code", code),
                ]
            )
        }

        /// On the repository alone (its sources without plugins), beside a plugin that observes every call or not,
        /// the counts are the repository's own outcomes: a miss that main answered was counted a hit.
        @Test(arguments: [false, true])
        func countsTheRepositorysOutcomesWithoutPluginsOnItsSources(besideAnObserver: Bool) async {
            let plugin = SwiftMetricsPlugin(factory: metrics)
            let plugins: [any StrataPlugin] = besideAnObserver ? [EveryCallObserver(), plugin] : [plugin]

            await ObservedScenario().run(plugins, onSources: false)

            #expect(calls("users", "cacheSync", "miss") == 1)
            #expect(calls("users", "cacheSync", "hit") == 1)
            #expect(calls("users", "cacheSync", "staleServed") == 1)
        }

        /// A list read counts as a hit when the cache answered it, a miss when main did.
        @Test func countsAListReadByWhoAnsweredIt() async throws {
            let users = CacheRepository(main: MemoryDataSource<String>(), cache: MemoryDataSource<String>())
            users.main.setValue("A", forKey: "a")
            users.main.setValue("B", forKey: "b")
            let plugged = users.plugins([SwiftMetricsPlugin(factory: metrics)], name: "users")

            _ = try await plugged.getAll(IdsQuery(["a", "b"]), operation: .cacheSync)
            _ = try await plugged.getAll(IdsQuery(["a", "b"]), operation: .cacheSync)

            #expect(calls("users", "cacheSync", "miss", method: "getAll") == 1)
            #expect(calls("users", "cacheSync", "hit", method: "getAll") == 1)
        }

        @Test func countsRepositoryCallsByOutcomeAndErrorCode() async {
            await ObservedScenario().run(SwiftMetricsPlugin(factory: metrics))

            #expect(calls("users", "cacheSync", "miss") == 1)
            #expect(calls("users", "cacheSync", "hit") == 1)
            #expect(calls("users", "cacheSync", "miss", "notFound") == 1)
            #expect(calls("users", "cacheSync", "staleServed") == 1)
            #expect(calls("users", "cacheSync", "error", "network") == 1)
            #expect(calls("memory", "none", "notValid", "notValid") == 1)
            #expect(calls("api", "none", "hit") == 1)
        }

        @Test func timesEachSourceAndMethod() async throws {
            await ObservedScenario().run(SwiftMetricsPlugin(factory: metrics, timingInterval: 1))

            let users = try metrics.expectTimer(
                SwiftMetricsPlugin.Label.duration,
                [("source", "users"), ("method", "get"), ("operation", "cacheSync")]
            )
            #expect(users.values.count == 5)
            let puts = try metrics.expectTimer(
                SwiftMetricsPlugin.Label.duration,
                [("source", "memory"), ("method", "put"), ("operation", "none")]
            )
            #expect(puts.values.count == 1)
        }

        @Test func timesOneCallInTheIntervalAndCountsEveryCall() async throws {
            let cache = MemoryDataSource<String>()
            cache.setValue("A", forKey: "a")
            let users = CacheRepository(main: MemoryDataSource<String>(), cache: cache)
                .plugins([SwiftMetricsPlugin(factory: metrics, timingInterval: 4)], name: "users")

            for _ in 0..<9 { _ = try await users.get(KeyQuery("a"), operation: .cacheSync) }

            #expect(calls("users", "cacheSync", "hit") == 9)
            let timer = try metrics.expectTimer(
                SwiftMetricsPlugin.Label.duration,
                [("source", "users"), ("method", "get"), ("operation", "cacheSync")]
            )
            #expect(timer.values.count == 3)
        }

        @Test func repositoriesUnderOneNameCountIntoOneSeriesWhicheverMadeIt() async throws {
            // Each chain binds its reports to the plugin's series once; two chains under one name share them, and a
            // repository operation named `none` is still the repository's, not a data source's.
            let plugin = SwiftMetricsPlugin(factory: metrics, timingInterval: 2)
            let cache = MemoryDataSource<String>()
            cache.setValue("A", forKey: "a")
            let main = MemoryDataSource<String>()
            let first = CacheRepository(main: main, cache: cache).plugins([plugin], name: "users")
            let second = CacheRepository(main: main, cache: cache).plugins([plugin], name: "users")
            let none = NamedOperation(name: "none")

            for _ in 0..<3 {
                _ = try await first.get(KeyQuery("a"), operation: .cacheSync)
                _ = try await second.get(KeyQuery("a"), operation: .cacheSync)
                _ = try await second.get(KeyQuery("a"), operation: none)
            }
            _ = try? await first.get(KeyQuery("b"), operation: none)

            #expect(calls("users", "cacheSync", "hit") == 6)
            #expect(calls("users", "none", "hit") == 3)
            #expect(calls("users", "none", "miss", "notFound") == 1)
            let timer = try metrics.expectTimer(
                SwiftMetricsPlugin.Label.duration,
                [("source", "users"), ("method", "get"), ("operation", "cacheSync")]
            )
            // One call in two of each chain is timed: `first`'s 1st and 3rd, `second`'s 1st, 3rd and 5th (each
            // `cacheSync` read, its `none` reads in between).
            #expect(timer.values.count == 5)
        }

        /// Beside another counting plugin on the same repository, the plugin still counts and times every call it
        /// should, and the other counter still gets the whole report, with the duration of the calls timed.
        @Test func countsBesideAnotherCounter() async throws {
            let other = RecordingCounter()
            let cache = MemoryDataSource<String>()
            cache.setValue("A", forKey: "a")
            let users = CacheRepository(main: MemoryDataSource<String>(), cache: cache)
                .plugins([SwiftMetricsPlugin(factory: metrics, timingInterval: 2), other], name: "users")

            for _ in 0..<3 { _ = try await users.get(KeyQuery("a"), operation: .cacheSync) }

            #expect(calls("users", "cacheSync", "hit") == 3)
            let timer = try metrics.expectTimer(
                SwiftMetricsPlugin.Label.duration,
                [("source", "users"), ("method", "get"), ("operation", "cacheSync")]
            )
            #expect(timer.values.count == 2)
            #expect(other.calls == Array(repeating: "users get cacheSync hit", count: 3))
            #expect(other.timed == [true, false, true])
        }

        @Test func countsStoreEvictionsByReasonWithEntriesAndBytes() throws {
            var configuration = MemoryDataSource<Data>.Configuration(countLimit: 2, costLimit: 25)
            configuration.evictionObserver = StoreMetrics(store: "avatars", factory: metrics)
            let store = MemoryDataSource(configuration: configuration)

            for key in ["a", "b", "c"] { store.setValue(Data(count: 10), forKey: key) }
            store.setValue(Data(count: 20), forKey: "d")
            store.removeAll()

            func evictions(_ reason: String) -> Int64 {
                metrics.counterTotal(
                    label: StoreMetrics.Label.evictions,
                    dimensions: [("store", "avatars"), ("reason", reason)]
                )
            }
            #expect(evictions("countLimit") == 2)
            #expect(evictions("sizeLimit") == 1)
            #expect(evictions("purged") == 1)
            let entries = try metrics.expectGauge(StoreMetrics.Label.entries, [("store", "avatars")])
            let bytes = try metrics.expectGauge(StoreMetrics.Label.bytes, [("store", "avatars")])
            #expect(entries.values == [2, 2, 1, 0])
            #expect(bytes.values == [20, 30, 20, 0])
        }

        /// A store that counts no bytes has no bytes series: a backend registers a series when it is made, and one
        /// made at once showed such a store at 0 bytes for ever.
        @Test func aStoreThatCountsNoBytesHasNoBytesSeries() throws {
            let observer = StoreMetrics(store: "names", factory: metrics)

            observer.storeDidEvict(
                StoreEviction(reason: .countLimit, key: "a", usage: StoreUsage(count: 3, bytes: nil))
            )

            let entries = try metrics.expectGauge(StoreMetrics.Label.entries, [("store", "names")])
            #expect(entries.values == [3])
            #expect(throws: (any Error).self) {
                try metrics.expectGauge(StoreMetrics.Label.bytes, [("store", "names")])
            }
        }
    }

    /// A plugin that counts, noting each call as `<source> <method> <operation> <outcome>` and whether it was timed;
    /// one call in two is timed.
    private final class RecordingCounter: StrataPlugin, CallCounter {
        private let recorded = Locked<[(call: String, timed: Bool)]>([])

        var calls: [String] { recorded.withLock { $0.map(\.call) } }
        var timed: [Bool] { recorded.withLock { $0.map(\.timed) } }

        func participation(in attachment: PluginAttachment) -> PluginParticipation { .counts(self, timingOneIn: 2) }

        func count(_ call: CountedCall) {
            let line = "\(call.source) \(call.method) \(call.operationName ?? "-") \(call.outcome)"
            recorded.withLock { $0.append((line, call.duration != nil)) }
        }
    }

    /// A plugin that observes every call and does nothing with it: it makes a repository's calls observed, not only
    /// counted.
    private struct EveryCallObserver: StrataPlugin {
        func participation(in attachment: PluginAttachment) -> PluginParticipation { .observes }

        func callDidFinish(_ observed: ObservedCall, result: (any Sendable)?) {}
    }
#endif
