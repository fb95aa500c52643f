// swift-tools-version:6.1

import PackageDescription

/// Library modules: each is a product, and each depends on nothing but the toolchain.
let libraries: [(name: String, dependencies: [Target.Dependency])] = [
    ("Strata", []),
    ("StrataMemory", ["Strata"]),
    ("StrataFile", ["Strata", "StrataStorage", "CStrataChecksum"]),
    ("StrataJSONFile", ["Strata", "StrataStorage"]),
    ("StrataNetwork", ["Strata"]),
    ("StrataCache", ["Strata", "StrataMemory", "StrataFile", "StrataJSONFile", "StrataNetwork"]),
    ("StrataTesting", ["Strata"]),
]

/// Packages that only test targets use: a consumer of Strata never fetches them.
let testOnlyDependencies: [String: [Target.Dependency]] = [
    "StrataNetwork": ["LoopbackServer", "StrataMemory"],
    // Reliability tests put a memory cache in front of the file store.
    "StrataFile": ["StrataMemory"],
    "StrataCache": ["LoopbackServer"],
]

var targets: [Target] = libraries.map { .target(name: $0.name, dependencies: $0.dependencies) }
// StrataFile's checksum kernel (AVX2, chosen at run time): C, because Swift cannot target one function at AVX2.
targets.append(.target(name: "CStrataChecksum"))
// The stores' shared folder layer (descriptor-relative calls that never follow a link, the owner lock, the store
// marker): internal to the package, compiled into the store modules, never a product of its own.
targets.append(.target(name: "StrataStorage", dependencies: ["Strata"]))
targets.append(.testTarget(name: "StrataStorageTests", dependencies: ["StrataStorage", "Strata"]))
targets += libraries.map { library in
    .testTarget(
        name: "\(library.name)Tests",
        dependencies: library.name == "StrataTesting"
            ? [.target(name: library.name)]
            : [.target(name: library.name), "StrataTesting"]
                + (testOnlyDependencies[library.name] ?? [])
    )
}
// Samples: executables of this package that are not products, so consumers never build or fetch them.
targets += [
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
]
/// One sample per operation, in `Samples/Operations/<Operation>`.
let operationSamples = ["Default", "Main", "MainSync", "Cache", "CacheSync", "CacheSyncFallback"]
targets += operationSamples.map { name in
    .executableTarget(
        name: "\(name)OperationSample",
        dependencies: ["SampleSupport", "Strata", "StrataMemory", "StrataTesting"],
        path: "Samples/Operations/\(name)"
    )
}
/// One sample per StrataCache composition, in `Samples/Compositions/<Composition>`.
/// One sample per composition, in `Samples/Compositions/<Composition>`; each starts its own local server.
let compositionSamples = ["BlobCache", "CacheProvider", "CacheManager"]
targets += compositionSamples.map { name in
    .executableTarget(
        name: "\(name)Sample",
        dependencies: ["LoopbackServer", "Strata", "StrataCache", "StrataFile", "StrataNetwork", "StrataTesting"],
        path: "Samples/Compositions/\(name)"
    )
}
targets.append(
    .testTarget(
        name: "SamplesTests",
        dependencies: operationSamples.map { .target(name: "\($0)OperationSample") } + ["StrataTour"]
            + compositionSamples.map { .target(name: "\($0)Sample") }
    )
)

/// Crash-test fixtures: a child process per store that the store's tests kill with SIGKILL at random moments.
/// Executables of this package, never products.
let crashWriters = ["StrataFile", "StrataJSONFile", "StrataCache"]
/// What a fixture needs beside its store's module: the BlobCache writer serves its own downloads over loopback HTTP.
let crashWriterDependencies: [String: [Target.Dependency]] = [
    "StrataCache": ["Strata", "StrataFile", "StrataNetwork", "StrataTesting", "LoopbackServer"]
]
targets += crashWriters.map { module in
    .executableTarget(
        name: "\(module)CrashWriter",
        dependencies: [.target(name: module)] + (crashWriterDependencies[module] ?? []),
        path: "Tests/Fixtures/\(module)CrashWriter"
    )
}
for module in crashWriters {
    for target in targets where target.name == "\(module)Tests" {
        target.dependencies.append(.target(name: "\(module)CrashWriter"))
    }
}

// The `strata` tool: inspects, verifies, prunes and clears file and JSON-file stores. A product (so the
// command plugin can run it), so it depends on nothing but this package's libraries.
targets += [
    // Named as its product: the plugin asks SwiftPM for the tool by that name.
    .executableTarget(name: "strata", dependencies: ["Strata", "StrataStorage", "StrataFile", "StrataJSONFile"]),
    .plugin(
        name: "StrataCommand",
        // No permission asked: stores live outside the package (caches). On macOS, writing commands take
        // `swift package --allow-writing-to-directory <folder> strata prune <folder>`.
        capability: .command(
            intent: .custom(verb: "strata", description: "Inspect, verify, prune or clear a Strata store folder.")
        ),
        dependencies: ["strata"]
    ),
    .testTarget(
        name: "StrataToolTests",
        dependencies: ["strata", "Strata", "StrataFile", "StrataJSONFile", "StrataTesting"]
    ),
]

// Fuzz targets (Tests/Fuzz): one per parser that reads what a file or a server wrote. `scripts/fuzz` builds
// `StrataFuzz` with `-sanitize=fuzzer` (libFuzzer); a normal build replays input files given as arguments, and
// StrataFuzzTests replays the checked-in seed corpora. Not products; the targets reach internal parsers through
// `@testable import`, so they run in debug builds.
targets += [
    .target(
        name: "StrataFuzzTargets",
        dependencies: ["Strata", "StrataStorage", "StrataFile", "StrataJSONFile", "StrataNetwork"],
        path: "Tests/Fuzz/Targets"
    ),
    .executableTarget(name: "StrataFuzz", dependencies: ["StrataFuzzTargets"], path: "Tests/Fuzz/Driver"),
    .testTarget(name: "StrataFuzzTests", dependencies: ["StrataFuzzTargets"]),
]

let package = Package(
    name: "Strata",
    // `Duration` and parameterized protocol types (`any DataSource<User>`) need the Swift 5.7 runtime.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: libraries.map { .library(name: $0.name, targets: [$0.name]) } + [
        .executable(name: "strata", targets: ["strata"]),
        .plugin(name: "StrataCommand", targets: ["StrataCommand"]),
    ],
    dependencies: [
        // Only for tests and samples (never a product's dependency): a loopback HTTP server.
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1")
    ],
    targets: targets
)

for target in package.targets where target.type != .plugin && target.name != "CStrataChecksum" {
    var settings = target.swiftSettings ?? []
    // Swift 6 language mode is the package default (tools 6.x); strict concurrency comes with it.
    // Require `any` for existential types (SE-0335).
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
