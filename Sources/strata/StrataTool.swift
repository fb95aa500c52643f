import Foundation
import Strata

/// The `strata` command: parses the arguments, runs a subcommand and maps the outcome to an exit code
/// (0 ok, 1 corruption found or failure, 2 usage error).
enum StrataTool {
    static func run(_ arguments: [String]) -> Int32 {
        do {
            let options = try Options(arguments)
            switch options.command {
            case .help:
                Output.line(Help.text(for: options.topic))
                return 0
            case .inspect: return try Inspect.run(options)
            case .verify: return try Verify.run(options)
            case .prune: return try Prune.run(options)
            case .clear: return try Clear.run(options)
            }
        } catch ToolError.usage(let message) {
            Output.error("strata: error: \(message)")
            Output.error("Run '\(Invocation.name) help' for usage.")
            return 2
        } catch ToolError.failure(let message) {
            Output.error("strata: error: \(message)")
            return 1
        } catch {
            Output.error("strata: error: \(error)")
            return 1
        }
    }

    /// Opens the store of the command's folder, as `access` says: `.readOnly` for a command that changes
    /// nothing (the folder is shared with other readers and nothing in it is created), `.readWrite` for one
    /// that removes or repairs.
    static func store(_ options: Options, access: StoreAccess) throws -> Store {
        guard let folder = options.folder else { throw ToolError.usage("a store folder is needed") }
        return try Store.open(folder, access: access)
    }

    /// An entry as JSON, with every field present (`null` when unknown).
    static func json(_ row: EntryRow, now: Date) -> [String: JSONValue] {
        [
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
    }
}
