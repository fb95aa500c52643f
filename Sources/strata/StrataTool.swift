import Foundation
import Strata
import StrataOffline

/// The `strata` command: parses the arguments, runs a subcommand and maps the outcome to an exit code
/// (0 ok, 1 corruption found or failure, 2 usage error).
enum StrataTool {
    static func run(_ arguments: [String]) -> Int32 {
        let status = runCommand(arguments)
        // Output that could not be written is a failure, whatever the command found: a script must not take a
        // cut-off listing for a whole one.
        guard let failure = Output.outputFailure.withLock({ $0 }) else { return status }
        Output.error("strata: error: cannot write to standard output: \(String(cString: strerror(failure)))")
        return max(status, 1)
    }

    /// Runs the tool on this process's command line: as ``run(_:)``, but an argument that is not UTF-8 is a usage
    /// error. `CommandLine.arguments` would have replaced its bad bytes with U+FFFD, naming another folder.
    static func runWithProcessArguments() -> Int32 {
        var arguments: [String] = []
        var firstInvalid: Int?
        // `argc` is 0 when a program starts the tool with an empty argument list.
        for index in 1..<max(1, Int(CommandLine.argc)) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            if let argument = String(validatingCString: pointer) {
                arguments.append(argument)
            } else {
                firstInvalid = firstInvalid ?? index
            }
        }
        if let firstInvalid {
            // An argument that is not UTF-8 is neither `--json` nor `--`: the others tell how to report.
            let error = ToolError.usage("argument \(firstInvalid) is not UTF-8 text: the tool takes only UTF-8 paths")
            return report(error, json: Options.asksForJSON(arguments))
        }
        return run(arguments)
    }

    /// Runs the command the arguments name; its exit code.
    private static func runCommand(_ arguments: [String]) -> Int32 {
        do {
            let options = try Options(arguments, environment: ProcessInfo.processInfo.environment)
            switch options.command {
            case .help:
                Output.line(Help.text(for: options.topic))
                return 0
            case .inspect: return try Inspect.run(options)
            case .verify: return try Verify.run(options)
            case .prune: return try Prune.run(options)
            case .clear: return try Clear.run(options)
            }
        } catch let error as ToolError {
            return report(error, json: Options.asksForJSON(arguments))
        } catch {
            return report(.failure("\(error)"), json: Options.asksForJSON(arguments))
        }
    }

    /// Prints why the tool stops and returns its exit code: with `--json`, an object
    /// `{"error": {"code", "message", "status"}}` on standard output (where the result would have gone) and
    /// nothing on standard error; otherwise `strata: error: …` on standard error, with a hint after a usage error.
    static func report(_ error: ToolError, json: Bool) -> Int32 {
        if json, (try? Output.json(.object(["error": errorObject(error)]))) != nil { return error.status }
        Output.error("strata: error: \(Output.plain(error.message))")
        if case .usage = error { Output.error("Run '\(Invocation.name) help' for usage.") }
        return error.status
    }

    /// An error as `--json` reports it: `{"code", "message", "status"}`.
    static func errorObject(_ error: ToolError) -> JSONValue {
        .object([
            "code": .string(error.code), "message": .string(error.message), "status": .int(Int(error.status)),
        ])
    }

    /// Opens the store of the command's folder, as `access` says: `.readOnly` for a command that changes
    /// nothing (the folder is shared with other readers and nothing in it is created), `.readWrite` for one
    /// that removes or repairs.
    ///
    /// - Parameter refusingOutbox: The error for an offline outbox, given the folder the user knows it by, when the
    ///   command does not act on one (thrown before anything else is checked of the folder but its marker).
    static func store(
        _ options: Options,
        access: StoreAccess,
        refusingOutbox: ((URL) -> ToolError)? = nil
    ) throws -> Store {
        guard let folder = options.folder else { throw ToolError.usage("a store folder is needed") }
        return try Store.open(
            folder,
            access: access,
            maximumMetadataSize: options.maximumMetadataSize,
            refusingOutbox: refusingOutbox
        )
    }

    /// An entry as JSON, with every field present (`null` when unknown).
    static func json(_ row: EntryRow, now: Date) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "key": .optional(row.key),
            "file": .string(row.file),
            "size": .int(row.size),
            "created": Output.isoDate(row.created),
            "expires": Output.isoDate(row.expiresAt),
            "lastAccess": Output.isoDate(row.lastAccess),
            "eTag": .optional(row.eTag),
            "lastModified": .optional(row.lastModified),
            "expired": .bool(row.isExpired(at: now)),
            "problem": .optional(row.problem),
        ]
        if let write = row.write { object["write"] = json(write) }
        return object
    }

    /// An offline outbox's queued write: what it does, and how delivery went so far.
    static func json(_ write: PendingWrite) -> JSONValue {
        .object([
            "sequence": .int(Int(clamping: write.sequence)),
            "key": .string(write.key),
            "operation": .string(write.operation.rawValue),
            "attempts": .int(write.attempts),
            "lastError": .optional(write.lastError),
            "lastFailure": .optional(write.lastFailure?.rawValue),
            "expectedVersion": .optional(write.expectedVersion),
            "notBefore": Output.isoDate(write.notBefore),
            "conflicts": .int(write.conflicts),
            "setAside": .bool(write.isSetAside),
        ])
    }
}
