import Foundation

/// The crash-writer fixtures: where they are built, and how often a crash test kills one.
package enum CrashWriterFixture {
    /// The built fixture `name` (`StrataFileCrashWriter`, …): beside the test bundle or runner, or in
    /// `.build/debug` of this package; `nil` when it is not built.
    package static func url(of name: String) -> URL? {
        var folders = [
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        ]
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        folders += Bundle.allBundles.filter { $0.bundleURL.pathExtension == "xctest" }
            .map { $0.bundleURL.deletingLastPathComponent() }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        folders.append(packageRoot.appendingPathComponent(".build/debug"))
        return folders.map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// How many times a crash test kills its writer: `STRATA_CRASH_KILLS` when set (the soak script sets it),
    /// else `defaultCount`.
    package static func kills(default defaultCount: Int) -> Int {
        ProcessInfo.processInfo.environment["STRATA_CRASH_KILLS"].flatMap { Int($0) }.map { max(1, $0) }
            ?? defaultCount
    }
}
