import Foundation
import Strata

/// `strata prune <folder> [--max-size S] [--max-count N] [--max-age S] [--dry-run] [--json]`: removes expired
/// entries, then the least recently used while over a limit, as the store's own cleanup does.
enum Prune {
    static func run(_ options: Options) throws -> Int32 {
        let store = try StrataTool.store(options, access: options.dryRun ? .readOnly : .readWrite)
        if case .outbox = store {
            // An outbox's entries are acknowledged writes main has not taken yet: they never expire, and dropping
            // the oldest would send main a key's later writes without its earlier ones.
            throw ToolError.failure(
                "\(options.folder ?? "the folder") is an offline outbox: its entries are writes waiting for main, "
                    + "not cached copies, so prune removes none (clear --yes drops them all). Nothing was changed.",
                code: "unsupportedStore"
            )
        }
        let contents = try store.contents(
            verifying: false,
            defaultMaxAge: options.maxAge,
            progress: Progress(requested: options.progress, verb: "read")
        )
        let now = Date()
        let victims = plan(contents.rows, now: now, maxSize: options.maxSize, maxCount: options.maxCount)
        if !options.dryRun, !victims.isEmpty {
            _ = try store.remove(victims.map(\.row))
        }
        let sound = contents.rows.filter { $0.problem == nil }
        let removedSize = victims.map(\.row).totalSize
        let remainingSize = sound.totalSize - min(removedSize, sound.totalSize)
        if options.json {
            try Output.json(
                .object([
                    "command": .string("prune"),
                    "store": Output.store(store),
                    "dryRun": .bool(options.dryRun),
                    "removed": .array(
                        victims.map { victim in
                            .object([
                                "key": .optional(victim.row.key), "file": .string(victim.row.file),
                                "size": .int(victim.row.size), "reason": .string(victim.reason),
                            ])
                        }
                    ),
                    "summary": .object([
                        "removedCount": .int(victims.count), "removedSize": .int(removedSize),
                        "remainingCount": .int(sound.count - victims.count), "remainingSize": .int(remainingSize),
                    ]),
                ])
            )
            return 0
        }
        Output.storeLine(store)
        if !victims.isEmpty {
            Output.line()
            Output.table(
                ["KEY", "SIZE", "REASON"],
                victims.map { [Output.cell($0.row.key), Output.size($0.row.size), $0.reason] },
                rightAligned: [1]
            )
            Output.line()
        }
        let verb = options.dryRun ? "Would remove" : "Removed"
        Output.line(
            "\(verb) \(Output.grouped(victims.count)) entries (\(Output.size(removedSize))); "
                + "\(Output.grouped(sound.count - victims.count)) entries (\(Output.size(remainingSize))) remain"
                + (options.dryRun ? " (dry run: nothing was removed)" : "")
        )
        return 0
    }

    /// What goes: every expired entry, then the least recently used while the rest is over a limit.
    /// Damaged entries are left to `verify --repair`.
    static func plan(_ rows: [EntryRow], now: Date, maxSize: Int?, maxCount: Int?) -> [(row: EntryRow, reason: String)]
    {
        let sound = rows.filter { $0.problem == nil }.sorted { $0.recency < $1.recency }
        var victims: [(row: EntryRow, reason: String)] = []
        var kept: [EntryRow] = []
        for row in sound {
            if row.isExpired(at: now) { victims.append((row, "expired")) } else { kept.append(row) }
        }
        var count = kept.count
        var size = kept.totalSize
        for row in kept {
            let overCount = count > (maxCount ?? .max)
            guard overCount || size > (maxSize ?? .max) else { break }
            victims.append((row, overCount ? "over max-count" : "over max-size"))
            count -= 1
            size -= min(size, row.size)
        }
        return victims
    }
}
