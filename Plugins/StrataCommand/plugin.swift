import Foundation
import PackagePlugin

/// `swift package strata <command> <folder> [options]`: runs the `strata` tool with the arguments given.
///
/// Relative folders are resolved against the package's folder. Writing commands (`prune`, `clear`,
/// `verify --repair`) outside the package need `--allow-writing-to-directory <folder>` on macOS. An argument holding
/// U+FFFD is refused: SwiftPM puts it in place of every byte that is not UTF-8, so the folder it names may be another.
@main
struct StrataCommand: CommandPlugin {
    /// Why the plugin runs no tool.
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        // SwiftPM decoded the arguments, replacing each byte that is not UTF-8 with U+FFFD: `caf\xFF` arrives as
        // `caf\u{FFFD}`, which names another folder (the tool run directly refuses the bytes instead).
        if let position = arguments.firstIndex(where: { $0.unicodeScalars.contains("\u{FFFD}") }) {
            throw Refusal(
                description: "argument \(position + 1) (\(arguments[position].debugDescription)) holds U+FFFD, which "
                    + "SwiftPM puts in place of bytes that are not UTF-8: it may name another folder than the one "
                    + "given. Run the strata executable itself for such a folder (swift run strata …, or the built "
                    + "strata), which takes the bytes as they are"
            )
        }
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
