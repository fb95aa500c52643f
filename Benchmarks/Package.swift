// swift-tools-version:6.1

import PackageDescription

/// Strata's benchmarks: every Strata figure has its baseline in the same suite, on the same data, so a
/// ratio is taken in one run. Run `swift package benchmark` here, or `scripts/benchmarks` from the root.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        // `name:` keeps `package: "Strata"` below working whatever the checkout folder is called.
        // The AsyncHTTPClient trait: the transport rows compare its transport with URLSession's.
        .package(name: "Strata", path: "..", traits: ["AsyncHTTPClient"]),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        // A loopback HTTP server for the BlobCache rows (the root package's `LoopbackServer` is not a product).
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1"),
    ],
    targets: [
        // Fixtures, run settings and measurements shared by the suites.
        .target(name: "BenchmarkSupport", path: "Sources/BenchmarkSupport")
    ]
)

/// Benchmark targets: one executable per folder under `Benchmarks/`.
let suites: [(name: String, strata: [String], others: [Target.Dependency])] = [
    ("MemoryBenchmarks", ["Strata", "StrataMemory"], []),
    ("FileBenchmarks", ["Strata", "StrataFile", "StrataJSONFile", "StrataTesting"], []),
    (
        "CacheBenchmarks", ["Strata", "StrataCache", "StrataNetwork", "StrataAsyncHTTPClient"],
        [.product(name: "FlyingFox", package: "FlyingFox")]
    ),
    (
        "OfflineBenchmarks", ["Strata", "StrataMemory", "StrataNetwork", "StrataOffline"],
        [.product(name: "FlyingFox", package: "FlyingFox")]
    ),
]

package.targets += suites.map { suite in
    .executableTarget(
        name: suite.name,
        dependencies: [.product(name: "Benchmark", package: "benchmark"), "BenchmarkSupport"]
            + suite.strata.map { .product(name: $0, package: "Strata") } + suite.others,
        path: "Benchmarks/\(suite.name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}
