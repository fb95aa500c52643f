import Foundation
import PackagePlugin

/// `swift package strata <command> <folder> [options]`: runs the `strata` tool with the arguments given.
///
/// Relative folders are resolved against the package's folder. Writing commands (`prune`, `clear`,
/// `verify --repair`) outside the package need `--allow-writing-to-directory <folder>` on macOS.
@main
struct StrataCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "strata")
        let process = Process()
        process.executableURL = tool.url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        // The commands the tool suggests use the spelling the user typed.
        process.environment = ProcessInfo.processInfo.environment.merging([
            "STRATA_INVOCATION": "swift package strata"
        ]) { $1 }
        try process.run()
        process.waitUntilExit()
        // The plugin ends with the tool's status: SwiftPM then prints `error: Plugin ended with exit code <status>`
        // after everything the tool printed (a diagnostic of the plugin's own would come before it), and
        // `swift package` exits with 1 (SwiftPM gives a plugin no way to choose its exit code).
        if process.terminationReason == .uncaughtSignal { exit(128 + process.terminationStatus) }
        if process.terminationStatus != 0 { exit(process.terminationStatus) }
    }
}
