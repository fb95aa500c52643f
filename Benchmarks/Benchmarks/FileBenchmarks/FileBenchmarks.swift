import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark("Noop") { _ in }
}
