// swift-tools-version:6.1

import PackageDescription

/// Library modules: each is a product, and each depends on nothing but the toolchain.
let libraries: [(name: String, dependencies: [Target.Dependency])] = [
    ("Strata", []),
    ("StrataMemory", ["Strata"]),
    ("StrataFile", ["Strata"]),
    ("StrataTesting", ["Strata"]),
]

var targets: [Target] = libraries.map { .target(name: $0.name, dependencies: $0.dependencies) }
targets += libraries.map { library in
    .testTarget(
        name: "\(library.name)Tests",
        dependencies: library.name == "StrataTesting"
            ? [.target(name: library.name)] : [.target(name: library.name), "StrataTesting"]
    )
}
targets += [
    .executableTarget(
        name: "StrataTour",
        dependencies: ["Strata", "StrataMemory"],
        path: "Samples/StrataTour"
    )
]
// A child process the StrataFile crash test kills at random moments; a test fixture, not a product.
targets += [
    .executableTarget(
        name: "StrataFileCrashWriter",
        dependencies: ["StrataFile"],
        path: "Tests/Fixtures/StrataFileCrashWriter"
    )
]
for target in targets where target.name == "StrataFileTests" {
    target.dependencies.append("StrataFileCrashWriter")
}

let package = Package(
    name: "Strata",
    // `Synchronization.Mutex` is the lock of every thread-safe type; it needs these minimums.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: libraries.map { .library(name: $0.name, targets: [$0.name]) },
    targets: targets
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    // Swift 6 language mode is the package default (tools 6.x); strict concurrency comes with it.
    // Require `any` for existential types (SE-0335).
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}
