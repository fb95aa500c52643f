import Strata
import StrataTesting
import Testing

struct PluginMetricsTests {
    @Test func countsHitsMissesAndErrorsByCode() async throws {
        // Given
        let metrics = MetricsPlugin(clock: ManualClock())
        let store = PluginTestStore(["a": 1])
        let source = store.plugins([metrics], name: "numbers")

        // When: three hits, two not found, one not valid, two network errors, one unauthorized, one put
        for _ in 0..<3 { _ = try await source.get(KeyQuery("a")) }
        for _ in 0..<2 { _ = try? await source.get(KeyQuery("missing")) }
        store.failNext(
            .notValid(staleValue: 0),
            StrataError(.network, "Reset"),
            StrataError(.network, "Reset"),
            StrataError(.unauthorized, "No")
        )
        for _ in 0..<4 { _ = try? await source.get(KeyQuery("a")) }
        _ = try await source.put(2, in: KeyQuery("b"))

        // Then
        let gets = metrics.snapshot()[.init(source: "numbers", method: .get)]
        #expect(gets.calls == 9)
        #expect(gets.hits == 3)
        #expect(gets.notFound == 2)
        #expect(gets.notValid == 1)
        #expect(gets.misses == 3)
        #expect(gets.errors == [.network: 2, .unauthorized: 1])
        #expect(gets.failures == 3)
        #expect(gets.latency.count == 9)
        #expect(metrics.snapshot()[.init(source: "numbers", method: .put)].successes == 1)
        #expect(metrics.snapshot().total().calls == 10)
    }

    @Test func countsErrorsThatAreNotStrataErrorsApart() async throws {
        struct Boom: Error {}
        struct ThrowingPlugin: StrataPlugin {
            func intercept<R: Sendable>(
                _ call: PluginCall,
                next: @escaping @Sendable () async throws -> R
            ) async throws -> R { throw Boom() }
        }
        let metrics = MetricsPlugin()
        let source = PluginTestStore(["a": 1]).plugins([metrics, ThrowingPlugin()], name: "s")

        _ = try? await source.get(KeyQuery("a"))

        #expect(metrics.snapshot()[.init(source: "s", method: .get)].otherErrors == 1)
    }

    @Test func reportsLatencyPercentilesPerMethod() async throws {
        // Given reads that take 1 ms to 100 ms on a manual clock, in a scrambled order
        let clock = ManualClock()
        let durations = (1...100).map { Duration.milliseconds(($0 * 37) % 100 + 1) }
        let metrics = MetricsPlugin(clock: clock)
        let source = PluginTestStore(["a": 1], clock: clock, readDurations: durations).plugins([metrics], name: "s")

        // When
        for _ in durations { _ = try await source.get(KeyQuery("a")) }

        // Then each percentile is at most one bucket (19 %) above the true value
        let latency = metrics.snapshot().total(method: .get).latency
        #expect(latency.count == 100)
        #expect(latency.minimum == .milliseconds(1))
        #expect(latency.maximum == .milliseconds(100))
        #expect(latency.mean == .microseconds(50_500))
        let p50 = try #require(latency.p50)
        let p90 = try #require(latency.p90)
        let p99 = try #require(latency.p99)
        #expect(p50 >= .milliseconds(50) && p50 <= .microseconds(59_500))
        #expect(p90 >= .milliseconds(90) && p90 <= .milliseconds(100))
        #expect(p99 >= .milliseconds(99) && p99 <= .milliseconds(100))
    }

    @Test func equalDurationsGiveExactPercentiles() {
        var histogram = LatencyHistogram()
        #expect(histogram.p50 == nil)

        for _ in 0..<10 { histogram.record(.microseconds(1_234)) }

        #expect(histogram.p50 == .microseconds(1_234))
        #expect(histogram.p99 == .microseconds(1_234))
    }

    /// A fraction that is not a number is the lowest rank, as one below 0 is; before, it trapped making an `Int`.
    @Test func aPercentileOfAFractionThatIsNotANumberIsTheLowest() {
        var histogram = LatencyHistogram()
        histogram.record(.milliseconds(1))
        histogram.record(.seconds(1))

        #expect(histogram.percentile(.nan) == histogram.percentile(0))
        #expect(histogram.percentile(-.infinity) == histogram.percentile(0))
        #expect(histogram.percentile(.infinity) == .seconds(1))
    }

    /// A duration of 292 years or more made the mean and the percentiles 2^63 nanoseconds as a `Double`, and
    /// `Int64(_:)` trapped on it; they saturate at the largest duration.
    @Test func theLargestDurationsSaturate() {
        var histogram = LatencyHistogram()
        histogram.record(.seconds(Int64.max))

        #expect(histogram.maximum == .nanoseconds(Int64.max))
        #expect(histogram.mean == .nanoseconds(Int64.max))
        #expect(histogram.p50 == .nanoseconds(Int64.max))
        #expect(histogram.p99 == .nanoseconds(Int64.max))
    }

    @Test func mergedHistogramsCountBothSides() throws {
        var fast = LatencyHistogram()
        var slow = LatencyHistogram()
        for _ in 0..<90 { fast.record(.milliseconds(1)) }
        for _ in 0..<10 { slow.record(.seconds(1)) }

        fast.merge(slow)

        #expect(fast.count == 100)
        let p50 = try #require(fast.p50)
        #expect(p50 >= .milliseconds(1) && p50 <= .microseconds(1_190))
        #expect(fast.p99 == .seconds(1))
    }

    @Test func repositoryCallsAreKeptApartByOperation() async throws {
        let metrics = MetricsPlugin()
        let repository = CacheRepository(main: PluginTestStore(["a": 1]), cache: PluginTestStore<Int>())
            .plugins([metrics], name: "users")

        _ = try await repository.get(KeyQuery("a"), operation: .cacheSync)
        _ = try await repository.get(KeyQuery("a"), operation: .cache)
        _ = try? await repository.get(KeyQuery("b"), operation: .cache)

        let snapshot = metrics.snapshot()
        #expect(snapshot[.init(source: "users", method: .get, operation: "cacheSync")].hits == 1)
        #expect(snapshot[.init(source: "users", method: .get, operation: "cache")].hits == 1)
        #expect(snapshot[.init(source: "users", method: .get, operation: "cache")].notFound == 1)
        #expect(snapshot.total(source: "users").calls == 3)
    }

    @Test func countsEveryOneOfManyConcurrentCalls() async throws {
        let metrics = MetricsPlugin()
        let source = PluginTestStore(["a": 1]).plugins([metrics], name: "s")

        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 { group.addTask { try await source.get(KeyQuery("a")) } }
            try await group.waitForAll()
        }

        #expect(metrics.snapshot().total().hits == 1_000)
        #expect(metrics.snapshot().total().latency.count == 1_000)
        metrics.reset()
        #expect(metrics.snapshot().entries.isEmpty)
    }
}
