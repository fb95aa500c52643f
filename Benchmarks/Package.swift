// swift-tools-version:6.1

import PackageDescription

/// Strata's benchmarks: every Strata figure has its baseline in the same suite, on the same data, so a
/// ratio is taken in one run. Run `swift package benchmark` here, or `scripts/benchmarks` from the root.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        // `name:` keeps `package: "Strata"` below working whatever the checkout folder is called.
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Fixtures, run settings and measurements shared by the suites.
        .target(name: "BenchmarkSupport", path: "Sources/BenchmarkSupport")
    ]
)

/// Benchmark targets: one executable per folder under `Benchmarks/`.
let suites: [(name: String, strata: [String])] = [
    ("MemoryBenchmarks", ["Strata", "StrataMemory"]),
    ("FileBenchmarks", ["Strata", "StrataFile", "StrataJSONFile", "StrataTesting"]),
]

package.targets += suites.map { suite in
    .executableTarget(
        name: suite.name,
        dependencies: [.product(name: "Benchmark", package: "benchmark"), "BenchmarkSupport"]
            + suite.strata.map { .product(name: $0, package: "Strata") },
        path: "Benchmarks/\(suite.name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}
