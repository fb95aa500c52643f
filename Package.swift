// swift-tools-version:6.1

import PackageDescription

/// Library modules: each is a product, and each depends on nothing but the toolchain.
let libraries: [(name: String, dependencies: [Target.Dependency])] = [
    ("Strata", []),
    ("StrataMemory", ["Strata"]),
    ("StrataTesting", ["Strata"]),
    ("StrataNetwork", ["Strata"]),
]

/// Packages that only test targets use: a consumer of Strata never fetches them.
let testOnlyDependencies: [String: [Target.Dependency]] = [
    "StrataNetwork": [
        .product(name: "FlyingFox", package: "FlyingFox"), .product(name: "FlyingSocks", package: "FlyingFox"),
    ]
]

var targets: [Target] = libraries.map { .target(name: $0.name, dependencies: $0.dependencies) }
targets += libraries.map { library in
    .testTarget(
        name: "\(library.name)Tests",
        dependencies: library.name == "StrataTesting"
            ? [.target(name: library.name)]
            : [.target(name: library.name), "StrataTesting"]
                + (testOnlyDependencies[library.name] ?? [])
    )
}
targets += [
    .executableTarget(
        name: "StrataTour",
        dependencies: ["Strata", "StrataMemory"],
        path: "Samples/StrataTour"
    )
]

let package = Package(
    name: "Strata",
    // `Synchronization.Mutex` is the lock of every thread-safe type; it needs these minimums.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: libraries.map { .library(name: $0.name, targets: [$0.name]) },
    dependencies: [
        // Test-only: a loopback HTTP server for StrataNetworkTests.
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1")
    ],
    targets: targets
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    // Swift 6 language mode is the package default (tools 6.x); strict concurrency comes with it.
    // Require `any` for existential types (SE-0335).
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
