import Benchmark
import Foundation

/// Run settings shared by every suite.
public enum Settings {
    /// Whether the suite runs as a smoke test (`STRATA_BENCHMARK_SMOKE=1`): every benchmark runs once,
    /// briefly, and no figure means anything. CI uses it to check that the benchmarks build and run.
    public static let isSmoke = ProcessInfo.processInfo.environment["STRATA_BENCHMARK_SMOKE"] == "1"

    /// `normal`, or 1 in smoke mode.
    public static func iterations(_ normal: Int) -> Int { isSmoke ? 1 : normal }

    /// `normal`, or 0 in smoke mode.
    public static func warmup(_ normal: Int) -> Int { isSmoke ? 0 : normal }

    /// The run settings of a suite's benchmarks: wall clock, throughput and mallocs, a few warm-up iterations, up to
    /// `maxDuration` per benchmark (smoke mode: one iteration, no warm-up).
    public static func configuration(
        metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal],
        warmup: Int = 3,
        maxDuration: Duration = .seconds(1),
        maxIterations: Int = 1_000_000
    ) -> Benchmark.Configuration {
        .init(
            metrics: metrics,
            warmupIterations: Settings.warmup(warmup),
            maxDuration: maxDuration,
            maxIterations: Settings.iterations(maxIterations)
        )
    }
}
