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
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            // The tool has printed its own message; pass its exit code on.
            Diagnostics.error("strata exited with status \(process.terminationStatus)")
            exit(process.terminationStatus)
        }
    }
}
