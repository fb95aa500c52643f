import Benchmark
import BenchmarkSupport
import Foundation
import InMemoryTracing
import Logging
import Metrics
import Strata
import StrataLogging
import StrataMetrics
import StrataTracing
import Tracing

// The observability rows: a memory-cache hit through `CacheRepository` with each integration's plugin (wired as its
// documentation wires it: the logger on the repository, metrics and tracing on the repository and on both sources)
// beside the same repository without any.
// Names are "Observability cache hit: <contender>"; `scripts/benchmarks` matches on them.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Settings.configuration()
    let row = "Observability cache hit"
    registerHits("\(row): without plugins") { HitFixture.plainRepository() }
    registerLoggingHits(row)
    registerHits("\(row): SwiftMetricsPlugin, NOOP factory") {
        HitFixture.pluggedRepository(SwiftMetricsPlugin(factory: NOOPMetricsHandler.instance))
    }
    registerHits("\(row): TracingPlugin, NoOpTracer") {
        HitFixture.pluggedRepository(TracingPlugin(tracer: NoOpTracer()))
    }
    // Context: a tracer that keeps every span; the spans are counted (two per hit: the repository's and the
    // cache's) and dropped after each iteration, outside the measured time.
    let tracer = InMemoryTracer()
    registerHits(
        "\(row): TracingPlugin, InMemoryTracer",
        check: { reads in
            let spans = tracer.popFinishedSpans().count
            return spans == 2 * reads ? nil : "\(spans) spans for \(reads) hits"
        },
        make: { HitFixture.pluggedRepository(TracingPlugin(tracer: tracer)) }
    )
}

/// The logging rows: the plugin's default levels (`debug` for the repository, `trace` for sources) under a logger
/// at `info`, which must write nothing, on the repository as documented and, as context, on both sources too; and,
/// as context, under a logger at `trace`, whose handler drops the lines.
func registerLoggingHits(_ row: String) {
    let disabled: @Sendable (_ reads: Int) -> String? = { _ in
        let lines = CountingLogHandler.lines.load(ordering: .relaxed)
        return lines == 0 ? nil : "\(lines) lines written at a disabled level"
    }
    @Sendable func quietPlugin() -> LoggerPlugin {
        LoggerPlugin(logger: Logger(label: "bench") { _ in CountingLogHandler(logLevel: .info) })
    }
    registerHits("\(row): LoggerPlugin, level disabled", check: disabled) {
        HitFixture.repositoryPlugged(quietPlugin())
    }
    registerHits("\(row): LoggerPlugin, level disabled, also on both sources", check: disabled) {
        HitFixture.pluggedRepository(quietPlugin())
    }
    registerHits(
        "\(row): LoggerPlugin, level enabled",
        check: { _ in CountingLogHandler.lines.load(ordering: .relaxed) > 0 ? nil : "no line written" },
        make: {
            let logger = Logger(label: "bench") { _ in CountingLogHandler(logLevel: .trace) }
            return HitFixture.pluggedRepository(LoggerPlugin(logger: logger))
        }
    )
}

/// Registers a row: each iteration reads the next ``HitFixture/reads`` keys of the shuffled order through the
/// repository; every read must be a hit, and `check` (run after the measured reads) must find nothing wrong.
func registerHits<Repository: GetRepository<Data>>(
    _ name: String,
    check: @escaping @Sendable (_ reads: Int) -> String? = { _ in nil },
    make: @escaping @Sendable () -> Repository
) {
    var cursor = Cursor(order: HitFixture.order)
    var repository: Repository?
    Benchmark(name) { benchmark in
        guard let repository else { return }
        let positions = cursor.next(HitFixture.reads)
        benchmark.startMeasurement()
        let hits = await readAll(repository, keys: HitFixture.keys, order: cursor.order, positions: positions)
        benchmark.stopMeasurement()
        if hits != positions.count { benchmark.error("\(positions.count - hits) misses in \(name)") }
        if let problem = check(positions.count) { benchmark.error(problem) }
    } setup: {
        repository = make()
    } teardown: {
        repository = nil
    }
}
