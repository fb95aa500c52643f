import Foundation
import Strata

/// `strata clear <folder> --yes [--json]`: removes every entry and the store's side files; other files stay.
enum Clear {
    static func run(_ options: Options) throws -> Int32 {
        guard options.yes else {
            throw ToolError.usage(
                "clear removes every entry in \(options.folder ?? "the folder"); add --yes to confirm"
            )
        }
        let store = try StrataTool.store(options, access: .readWrite)
        let removed = try store.removeAll()
        if options.json {
            try Output.json(
                .object([
                    "command": .string("clear"), "store": Output.store(store), "removedCount": .int(removed),
                ])
            )
        } else {
            Output.storeLine(store)
            Output.line(
                "Removed \(Output.grouped(removed)) entries and the store's side files; files the store did not "
                    + "write were left alone"
            )
        }
        return 0
    }
}
