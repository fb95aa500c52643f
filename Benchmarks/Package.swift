// swift-tools-version:6.2

import PackageDescription

/// Strata's benchmarks: every Strata figure has its baseline in the same suite, on the same data, so a
/// ratio is taken in one run. Run `swift package benchmark` here, or `scripts/benchmarks` from the root.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        // `name:` keeps `package: "Strata"` below working whatever the checkout folder is called.
        // The integrations' traits: the transport rows compare the AsyncHTTPClient transport with URLSession's, the
        // observability rows time a cache hit with each plugin, the PostgreSQL rows read through StrataPostgres.
        .package(
            name: "Strata",
            path: "..",
            traits: ["AsyncHTTPClient", "Logging", "Metrics", "Tracing", "Postgres"]
        ),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        // A loopback HTTP server for the BlobCache rows (the root package's `LoopbackServer` is not a product).
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1"),
        // What the integrations' rows configure: a `Logger`, a metrics factory, a tracer, a PostgreSQL client.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The bare AsyncHTTPClient fetch the BlobCache rows on AsyncHTTPClient are compared with.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // Fixtures, run settings and measurements shared by the suites.
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            path: "Sources/BenchmarkSupport"
        ),
        // The root package's private PostgreSQL server (initdb in a temporary folder, a loopback port), which is not
        // a product: `Sources/BenchmarkPostgres` is a link to `Tests/PrivatePostgres`, so both build one source.
        .target(name: "BenchmarkPostgres", path: "Sources/BenchmarkPostgres"),
    ]
)

/// Benchmark targets: one executable per folder under `Benchmarks/`.
let suites: [(name: String, strata: [String], others: [Target.Dependency])] = [
    ("MemoryBenchmarks", ["Strata", "StrataMemory"], []),
    ("FileBenchmarks", ["Strata", "StrataFile", "StrataJSONFile", "StrataTesting"], []),
    (
        "CacheBenchmarks", ["Strata", "StrataCache", "StrataNetwork", "StrataAsyncHTTPClient"],
        [
            .product(name: "FlyingFox", package: "FlyingFox"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]
    ),
    (
        "OfflineBenchmarks", ["Strata", "StrataMemory", "StrataNetwork", "StrataOffline"],
        [.product(name: "FlyingFox", package: "FlyingFox")]
    ),
    (
        "ObservabilityBenchmarks", ["Strata", "StrataMemory", "StrataLogging", "StrataMetrics", "StrataTracing"],
        [
            .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
        ]
    ),
    (
        "PostgresBenchmarks", ["Strata", "StrataMemory", "StrataPostgres"],
        [.product(name: "PostgresNIO", package: "postgres-nio"), "BenchmarkPostgres"]
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
