// swift-tools-version:6.2

import PackageDescription

// PostgresNIO, only when the trait `Postgres` is enabled: without it, nothing of postgres-nio is built.
let postgresNIO: Target.Dependency = .product(
    name: "PostgresNIO",
    package: "postgres-nio",
    condition: .when(traits: ["Postgres"])
)

// Its connection pool, whose errors postgres-nio hands over unmapped (a client shut down), under the same trait.
let postgresPool: Target.Dependency = .product(
    name: "_ConnectionPoolModule",
    package: "postgres-nio",
    condition: .when(traits: ["Postgres"])
)

let package = Package(
    name: "Strata",
    // `Duration` and parameterized protocol types (`any DataSource<User>`) need the Swift 5.7 runtime.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    // Every product depends on nothing but the toolchain and this package's own targets.
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataMemory", targets: ["StrataMemory"]),
        .library(name: "StrataFile", targets: ["StrataFile"]),
        .library(name: "StrataJSONFile", targets: ["StrataJSONFile"]),
        .library(name: "StrataNetwork", targets: ["StrataNetwork"]),
        .library(name: "StrataCache", targets: ["StrataCache"]),
        .library(name: "StrataOffline", targets: ["StrataOffline"]),
        .library(name: "StrataTesting", targets: ["StrataTesting"]),
        .executable(name: "strata", targets: ["strata"]),
        .plugin(name: "StrataCommand", targets: ["StrataCommand"]),
        // Integrations: each product's dependency is guarded by a trait that is off by default, and without it the
        // product compiles to nothing but a `#warning` saying how to enable it.
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        .library(name: "StrataAsyncHTTPClient", targets: ["StrataAsyncHTTPClient"]),
        .library(name: "StrataLogging", targets: ["StrataLogging"]),
        .library(name: "StrataMetrics", targets: ["StrataMetrics"]),
        .library(name: "StrataTracing", targets: ["StrataTracing"]),
    ],
    // Each integration's trait. None is in the default set, so a consumer that enables none fetches no package, and
    // a plain `swift build` / `swift test` here builds none: `swift build --traits Postgres` (or `traits: ["Postgres"]`
    // on a consumer's `.package` line) enables one.
    traits: [
        .trait(name: "Postgres", description: "StrataPostgres: a PostgreSQL data source and its change feed."),
        .trait(
            name: "AsyncHTTPClient",
            description: "StrataAsyncHTTPClient: an HTTPTransport on AsyncHTTPClient (async-http-client 1.37)."
        ),
        .trait(name: "Logging", description: "StrataLogging: a plugin that writes one swift-log line per call."),
        .trait(name: "Metrics", description: "StrataMetrics: swift-metrics counters, timers and store gauges."),
        .trait(name: "Tracing", description: "StrataTracing: spans per call and trace context on network requests."),
        .trait(
            name: "ServerSample",
            description: "The Hummingbird sample server (not a product) and its end-to-end test.",
            enabledTraits: ["Logging", "Metrics", "Tracing", "AsyncHTTPClient"]
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        // Only for tests and samples (never a product's dependency): a loopback HTTP server.
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1"),
        // Only with the AsyncHTTPClient trait: the client, and SwiftNIO for its buffer, header and error types.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        // Only with the trait `Postgres`: StrataPostgres's client.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Only with the traits `Logging`, `Metrics`, `Tracing` and `ServerSample` (Hummingbird: the sample server).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // Core libraries: each is a product.
        .target(name: "Strata", dependencies: ["CStrataAtomics"]),
        .target(name: "StrataMemory", dependencies: ["Strata"]),
        .target(name: "StrataFile", dependencies: ["Strata", "StrataStorage", "StrataSupport"]),
        .target(name: "StrataJSONFile", dependencies: ["Strata", "StrataStorage", "StrataSupport"]),
        .target(name: "StrataNetwork", dependencies: ["Strata", "StrataStorage", "StrataSupport"]),
        .target(
            name: "StrataCache",
            dependencies: [
                "Strata", "StrataStorage", "StrataSupport", "StrataMemory", "StrataFile", "StrataJSONFile",
                "StrataNetwork",
            ]
        ),
        // Offline writes: a durable outbox (a JSON-file store) that replays writes main missed.
        .target(name: "StrataOffline", dependencies: ["Strata", "StrataStorage", "StrataJSONFile"]),
        .target(name: "StrataTesting", dependencies: ["Strata"]),
        // AsyncHTTPClient transport: without the AsyncHTTPClient trait the module is empty but for a `#warning`.
        .target(
            name: "StrataAsyncHTTPClient",
            dependencies: [
                "Strata", "StrataNetwork",
                .product(
                    name: "AsyncHTTPClient",
                    package: "async-http-client",
                    condition: .when(traits: ["AsyncHTTPClient"])
                ),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
            ]
        ),
        // PostgreSQL as a main source, with a LISTEN / NOTIFY change feed that keeps a fleet's caches coherent.
        .target(name: "StrataPostgres", dependencies: ["Strata", postgresNIO, postgresPool]),

        // Internal support: compiled into the libraries that use them, never products of their own.
        // The stores' shared folder layer and the one POSIX layer: descriptor-relative calls that never follow a
        // link, one errno-to-error table, the owner lock, the store marker.
        .target(name: "StrataStorage", dependencies: ["Strata", "CStrataFiles"]),
        // The hashes and the content checksum under one collision rule, the progress de-duplicator.
        .target(name: "StrataSupport", dependencies: ["Strata", "CStrataChecksum"]),
        // The content checksum's kernel (AVX2, chosen at run time): C, because Swift cannot target one function
        // at AVX2.
        .target(name: "CStrataChecksum"),
        // The core's few atomic operations (a flag, a counter, a published pointer): C, because Swift's `Atomic`
        // needs macOS 15.
        .target(name: "CStrataAtomics"),
        // The rename that never replaces (Linux `renameat2`, Darwin `renameatx_np`): C, because Glibc's module
        // does not declare it.
        .target(name: "CStrataFiles"),

        // Tool and plugin: the `strata` tool inspects, verifies, prunes and clears file and JSON-file stores. A
        // product (so the command plugin can run it), so it depends on nothing but this package's libraries; named
        // as its product, because the plugin asks SwiftPM for the tool by that name.
        .executableTarget(
            name: "strata",
            dependencies: [
                "Strata", "StrataStorage", "StrataFile", "StrataJSONFile", "StrataCache", "StrataOffline",
            ]
        ),
        .plugin(
            name: "StrataCommand",
            // No permission asked: stores live outside the package (caches). On macOS, writing commands take
            // `swift package --allow-writing-to-directory <folder> strata prune <folder>`.
            capability: .command(
                intent: .custom(verb: "strata", description: "Inspect, verify, prune or clear a Strata store folder.")
            ),
            dependencies: ["strata"]
        ),

        // Samples: executables of this package that are not products, so consumers never build or fetch them.
        // A FlyingFox server on 127.0.0.1 that samples start themselves and tests reuse.
        .target(
            name: "LoopbackServer",
            dependencies: ["Strata", .product(name: "FlyingFox", package: "FlyingFox")],
            path: "Samples/LoopbackServer"
        ),
        .target(name: "SampleSupport", dependencies: ["Strata"], path: "Samples/SampleSupport"),
        .executableTarget(
            name: "StrataTour",
            dependencies: [
                "SampleSupport", "LoopbackServer", "Strata", "StrataMemory", "StrataFile", "StrataJSONFile",
                "StrataNetwork", "StrataCache",
            ],
            path: "Samples/StrataTour"
        ),
        .executableTarget(
            name: "ObservationScreen",
            dependencies: ["Strata", "StrataMemory"],
            path: "Samples/ObservationScreen"
        ),
        // Offline writes through a durable outbox, against a server that goes down and comes back.
        .executableTarget(
            name: "OfflineNotes",
            dependencies: ["LoopbackServer", "Strata", "StrataMemory", "StrataNetwork", "StrataOffline"],
            path: "Samples/OfflineNotes"
        ),
        // Three instances of an HTTP service over one PostgreSQL, a writer and a checker (trait `Postgres`).
        .executableTarget(
            name: "Fleet",
            dependencies: [
                "Strata", "StrataMemory", "StrataPostgres", "LoopbackServer", "PrivatePostgres", postgresNIO,
            ],
            path: "Samples/Fleet"
        ),
        // One sample per operation, in `Samples/Operations/<Operation>`.
        .executableTarget(
            name: "DefaultOperationSample",
            dependencies: ["SampleSupport", "Strata", "StrataMemory", "StrataTesting"],
            path: "Samples/Operations/Default"
        ),
        .executableTarget(
            name: "MainOperationSample",
            dependencies: ["SampleSupport", "Strata", "StrataMemory", "StrataTesting"],
            path: "Samples/Operations/Main"
        ),
        .executableTarget(
            name: "MainSyncOperationSample",
            dependencies: ["SampleSupport", "Strata", "StrataMemory", "StrataTesting"],
            path: "Samples/Operations/MainSync"
        ),
        .executableTarget(
            name: "CacheOperationSample",
            dependencies: ["SampleSupport", "Strata", "StrataMemory", "StrataTesting"],
            path: "Samples/Operations/Cache"
        ),
        .executableTarget(
            name: "CacheSyncOperationSample",
            dependencies: ["SampleSupport", "Strata", "StrataMemory", "StrataTesting"],
            path: "Samples/Operations/CacheSync"
        ),
        .executableTarget(
            name: "CacheSyncFallbackOperationSample",
            dependencies: ["SampleSupport", "Strata", "StrataMemory", "StrataTesting"],
            path: "Samples/Operations/CacheSyncFallback"
        ),
        // One sample per StrataCache composition, in `Samples/Compositions/<Composition>`; each starts its own
        // local server.
        .executableTarget(
            name: "BlobCacheSample",
            dependencies: ["LoopbackServer", "Strata", "StrataCache", "StrataFile", "StrataNetwork", "StrataTesting"],
            path: "Samples/Compositions/BlobCache"
        ),
        .executableTarget(
            name: "CacheProviderSample",
            dependencies: ["LoopbackServer", "Strata", "StrataCache", "StrataFile", "StrataNetwork", "StrataTesting"],
            path: "Samples/Compositions/CacheProvider"
        ),
        .executableTarget(
            name: "CacheManagerSample",
            dependencies: ["LoopbackServer", "Strata", "StrataCache", "StrataFile", "StrataNetwork", "StrataTesting"],
            path: "Samples/Compositions/CacheManager"
        ),

        // Crash-test fixtures: a child process per store that the store's tests kill with SIGKILL at random
        // moments. Executables of this package, never products.
        .executableTarget(
            name: "StrataFileCrashWriter",
            dependencies: ["StrataFile", "StrataStorage", "StrataTesting"],
            path: "Tests/Fixtures/StrataFileCrashWriter"
        ),
        .executableTarget(
            name: "StrataJSONFileCrashWriter",
            dependencies: ["StrataJSONFile"],
            path: "Tests/Fixtures/StrataJSONFileCrashWriter"
        ),
        // The BlobCache writer serves its own downloads over loopback HTTP.
        .executableTarget(
            name: "StrataCacheCrashWriter",
            dependencies: [
                "StrataCache", "Strata", "StrataFile", "StrataNetwork", "StrataTesting", "LoopbackServer",
                "StrataTestSupport",
            ],
            path: "Tests/Fixtures/StrataCacheCrashWriter"
        ),

        // The offline writer writes notes through an outbox to a notes server its test runs, which goes up and down.
        .executableTarget(
            name: "StrataOfflineCrashWriter",
            dependencies: ["StrataOffline", "Strata", "StrataMemory", "StrataNetwork"],
            path: "Tests/Fixtures/StrataOfflineCrashWriter"
        ),
        // The stalled fetcher fetches through a transport while its test stops it (SIGSTOP).
        .executableTarget(
            name: "StrataStalledFetcher",
            dependencies: ["Strata", "StrataNetwork", "StrataAsyncHTTPClient"],
            path: "Tests/Fixtures/StrataStalledFetcher"
        ),

        // Test support: helpers every test target and crash writer shares (the test transport, the crash-writer
        // fixtures' location, a dedicated thread for blocking work, bind mounts). Not a product.
        .target(
            name: "StrataTestSupport",
            dependencies: ["Strata", "StrataNetwork"],
            path: "Tests/StrataTestSupport"
        ),

        // A PostgreSQL server of its own (initdb in a temporary folder, a loopback port) for the StrataPostgres tests
        // and the Fleet sample. Foundation only, so it needs no trait.
        .target(name: "PrivatePostgres", path: "Tests/PrivatePostgres"),

        // Tests: one target per module. Test-only packages (FlyingFox through LoopbackServer) stay here.
        .testTarget(
            name: "StrataTests",
            dependencies: ["Strata", "StrataTesting", "StrataObservabilityTestSupport", "StrataTestSupport"]
        ),
        .testTarget(
            name: "StrataMemoryTests",
            dependencies: ["StrataMemory", "StrataTesting", "StrataTestSupport"]
        ),
        .testTarget(
            name: "StrataFileTests",
            dependencies: [
                "StrataFile", "StrataStorage", "StrataTesting", "StrataSupport", "StrataTestSupport",
                // Reliability tests put a memory cache in front of the file store.
                "StrataMemory",
                "StrataFileCrashWriter",
            ]
        ),
        .testTarget(
            name: "StrataJSONFileTests",
            dependencies: [
                "StrataJSONFile", "StrataStorage", "StrataTesting", "StrataSupport", "StrataTestSupport",
                "StrataJSONFileCrashWriter",
            ]
        ),
        .testTarget(
            name: "StrataNetworkTests",
            dependencies: [
                "StrataNetwork", "StrataTesting", "StrataTestSupport", "LoopbackServer", "StrataMemory",
                "StrataStalledFetcher",
                // The shared transport tests also run on the AsyncHTTPClient transport when its trait is enabled.
                "StrataAsyncHTTPClient",
            ]
        ),
        .testTarget(
            name: "StrataCacheTests",
            dependencies: [
                "StrataCache", "StrataTesting", "StrataTestSupport", "LoopbackServer", "StrataCacheCrashWriter",
            ]
        ),
        .testTarget(
            name: "StrataOfflineTests",
            dependencies: [
                "StrataOffline", "StrataTesting", "StrataTestSupport", "LoopbackServer", "StrataMemory",
                "StrataNetwork",
                "StrataJSONFile", "StrataOfflineCrashWriter",
            ]
        ),
        .testTarget(name: "StrataTestingTests", dependencies: ["StrataTesting", "StrataTestSupport"]),
        // The AsyncHTTPClient transport's own tests (the shared transport suite runs in StrataNetworkTests): empty
        // without the AsyncHTTPClient trait.
        .testTarget(
            name: "StrataAsyncHTTPClientTests",
            dependencies: [
                "StrataAsyncHTTPClient", "StrataNetwork", "StrataTestSupport", "LoopbackServer", "Strata",
                .product(
                    name: "AsyncHTTPClient",
                    package: "async-http-client",
                    condition: .when(traits: ["AsyncHTTPClient"])
                ),
            ]
        ),
        // Starts its own PostgreSQL server (skipped, saying why, when the binaries are missing).
        .testTarget(
            name: "StrataPostgresTests",
            dependencies: [
                "StrataPostgres", "StrataTesting", "StrataMemory", "Strata", "PrivatePostgres", "StrataTestSupport",
                postgresNIO, postgresPool,
            ]
        ),
        .testTarget(name: "StrataStorageTests", dependencies: ["StrataStorage", "Strata", "StrataTestSupport"]),
        .testTarget(name: "StrataSupportTests", dependencies: ["StrataSupport", "Strata"]),
        .testTarget(
            name: "StrataToolTests",
            dependencies: [
                "strata", "Strata", "StrataFile", "StrataJSONFile", "StrataCache", "StrataNetwork", "StrataTesting",
                "StrataTestSupport", "LoopbackServer", "StrataOffline", "StrataStorage",
            ]
        ),
        // The documentation's Swift code blocks, generated by scripts/check-doc-snippets: compiled with the tests,
        // so a block that stops compiling fails the build.
        .testTarget(
            name: "DocSnippetTests",
            dependencies: [
                "Strata", "StrataMemory", "StrataFile", "StrataJSONFile", "StrataNetwork", "StrataCache",
                "StrataOffline", "StrataTesting",
            ],
            exclude: ["README.md"]
        ),
        .testTarget(
            name: "SamplesTests",
            dependencies: [
                "DefaultOperationSample", "MainOperationSample", "MainSyncOperationSample", "CacheOperationSample",
                "CacheSyncOperationSample", "CacheSyncFallbackOperationSample", "StrataTour", "BlobCacheSample",
                "CacheProviderSample", "CacheManagerSample", "OfflineNotes", "StrataTestSupport",
            ]
        ),

        // Fuzz targets (Tests/Fuzz): one per parser that reads what a file or a server wrote. `scripts/fuzz`
        // builds `StrataFuzz` with `-sanitize=fuzzer` (libFuzzer); a normal build replays input files given as
        // arguments, and StrataFuzzTests replays the checked-in seed corpora. Not products; the targets reach
        // internal parsers through `@testable import`, so they run in debug builds.
        .target(
            name: "StrataFuzzTargets",
            dependencies: [
                "Strata", "StrataStorage", "StrataSupport", "StrataFile", "StrataJSONFile", "StrataNetwork",
                "StrataCache", "StrataOffline",
                .target(name: "StrataPostgres", condition: .when(traits: ["Postgres"])),
            ],
            path: "Tests/Fuzz/Targets"
        ),
        .executableTarget(name: "StrataFuzz", dependencies: ["StrataFuzzTargets"], path: "Tests/Fuzz/Driver"),
        .testTarget(name: "StrataFuzzTests", dependencies: ["StrataFuzzTargets"]),
    ]
)

// MARK: - Server ecosystem integrations: swift-log, swift-metrics, swift-distributed-tracing
// Their traits, packages and products are declared above; each module compiles to a `#warning` only without its
// trait. `ServerSample` enables all of them and builds the Hummingbird sample server.
package.targets += [
    .target(
        name: "StrataLogging",
        dependencies: [
            "Strata", .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Logging"])),
        ]
    ),
    .target(
        name: "StrataMetrics",
        dependencies: [
            "Strata", .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
        ]
    ),
    .target(
        name: "StrataTracing",
        dependencies: [
            "Strata", "StrataNetwork",
            .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
        ]
    ),
    // The sample server (not a product): Hummingbird on 127.0.0.1, a repository with all three integrations.
    .executableTarget(
        name: "StrataServerSample",
        dependencies: [
            "Strata", "StrataMemory", "StrataNetwork", "StrataLogging", "StrataMetrics", "StrataTracing",
            "StrataAsyncHTTPClient",
            .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["ServerSample"])),
            .product(
                name: "AsyncHTTPClient",
                package: "async-http-client",
                condition: .when(traits: ["ServerSample"])
            ),
            .product(name: "Logging", package: "swift-log", condition: .when(traits: ["ServerSample"])),
            .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["ServerSample"])),
            .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["ServerSample"])),
        ],
        path: "Samples/ServerSample"
    ),
    .testTarget(
        name: "StrataServerSampleTests",
        dependencies: [
            "StrataServerSample", "Strata", "StrataNetwork",
            .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["ServerSample"])),
            .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["ServerSample"])),
            .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["ServerSample"])),
            .product(
                name: "InMemoryTracing",
                package: "swift-distributed-tracing",
                condition: .when(traits: ["ServerSample"])
            ),
        ]
    ),
    // The scenario every integration's tests run (sources, repository, one call per outcome). Not a product.
    .target(
        name: "StrataObservabilityTestSupport",
        dependencies: ["Strata", "StrataTesting"],
        path: "Tests/StrataObservabilityTestSupport"
    ),
    .testTarget(
        name: "StrataLoggingTests",
        dependencies: [
            "StrataLogging", "StrataMemory", "StrataTesting", "StrataObservabilityTestSupport",
            .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["Logging"])),
        ]
    ),
    .testTarget(
        name: "StrataMetricsTests",
        dependencies: [
            "StrataMetrics", "StrataMemory", "StrataTesting", "StrataObservabilityTestSupport",
            .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
        ]
    ),
    .testTarget(
        name: "StrataTracingTests",
        dependencies: [
            "StrataTracing", "StrataNetwork", "StrataTesting", "StrataObservabilityTestSupport",
            .product(
                name: "InMemoryTracing",
                package: "swift-distributed-tracing",
                condition: .when(traits: ["Tracing"])
            ),
        ]
    ),
]

// Swift settings, the same for every Swift target (plugins and the C targets take none).
for target in package.targets where target.type != .plugin && !target.name.hasPrefix("CStrata") {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            // Swift 6 language mode is the package default (tools 6.x); strict concurrency comes with it.
            // Require `any` for existential types (SE-0335), so an existential's cost is visible where it is written.
            .enableUpcomingFeature("ExistentialAny")
        ]
}
