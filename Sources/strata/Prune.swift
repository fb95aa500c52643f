import Foundation
import Strata

/// `strata prune <folder> [--max-size S] [--max-count N] [--max-age S] [--dry-run] [--json]`: removes expired
/// entries, then the least recently used while over a limit, as the store's own cleanup does.
enum Prune {
    /// An entry the plan removes, and why.
    typealias Victim = (row: EntryRow, reason: String)

    /// What a prune did.
    struct Outcome {
        /// The store pruned.
        var store: Store
        /// The entries removed, or in a dry run the entries that would be.
        var removed: [Victim]
        /// How many planned entries were kept because they changed after the plan (written, read or renewed by an
        /// app that opened a JSON-file store meanwhile).
        var skippedCount: Int
        /// The sound entries the plan saw.
        var sound: [EntryRow]
        /// The planned entries that could not be removed, each with why; they stay, and count as remaining.
        var failed: [(row: EntryRow, error: ToolError)] = []

        /// The bytes removed.
        var removedSize: Int { removed.map(\.row).totalSize }
        /// How many sound entries remain.
        var remainingCount: Int { sound.count - removed.count }
        /// The bytes of the sound entries that remain.
        var remainingSize: Int { sound.totalSize - min(removedSize, sound.totalSize) }

        /// Why the prune fails although it removed what it could: the first planned entry it could not remove, and
        /// how many there were; `nil` when every planned entry went or was skipped.
        var failure: ToolError? {
            guard let first = failed.first else { return nil }
            let name = first.row.key.map { Output.cell($0) } ?? first.row.file
            let others = failed.count > 1 ? " (and \(Output.grouped(failed.count - 1)) more planned entries)" : ""
            return .failure(
                "could not remove \(name)\(others): \(first.error.message). They stay; the other entries listed were "
                    + "removed.",
                code: first.error.code
            )
        }
    }

    /// Prints what the prune did; when some planned entries could not be removed, says so after it (the first
    /// one's error: with `--json`, as the report's `error`) and exits with 1.
    static func run(_ options: Options) throws -> Int32 {
        let outcome = try prune(options)
        let failure = outcome.failure
        if options.json {
            try Output.json(json(outcome, dryRun: options.dryRun))
            return failure?.status ?? 0
        }
        Output.storeLine(outcome.store)
        if !outcome.removed.isEmpty {
            Output.line()
            Output.table(
                ["KEY", "SIZE", "REASON"],
                outcome.removed.map { [Output.cell($0.row.key), Output.size($0.row.size), $0.reason] },
                rightAligned: [1]
            )
            Output.line()
        }
        let verb = options.dryRun ? "Would remove" : "Removed"
        Output.line(
            "\(verb) \(Output.grouped(outcome.removed.count)) entries (\(Output.size(outcome.removedSize))); "
                + "\(Output.grouped(outcome.remainingCount)) entries (\(Output.size(outcome.remainingSize))) remain"
                + (outcome.skippedCount > 0
                    ? "; \(Output.grouped(outcome.skippedCount)) planned entries skipped: they changed after the plan"
                    : "")
                + (options.dryRun ? " (dry run: nothing was removed)" : "")
        )
        guard let failure else { return 0 }
        return StrataTool.report(failure, json: false)
    }

    /// Plans and, unless it is a dry run, removes: what `run` reports.
    ///
    /// - Parameter whileReleased: Runs while a JSON-file store is held by no one between the plan and the removal
    ///   (see ``Store/remove(_:whileReleased:)``).
    static func prune(_ options: Options, whileReleased: () throws -> Void = {}) throws -> Outcome {
        // An outbox's entries are acknowledged writes main has not taken yet: they never expire, and dropping the
        // oldest would send main a key's later writes without its earlier ones. Refused whoever owns it.
        let store = try StrataTool.store(options, access: options.dryRun ? .readOnly : .readWrite) { outbox in
            ToolError.failure(
                "\(outbox.path) is an offline outbox: its entries are writes waiting for main, "
                    + "not cached copies, so prune removes none (clear --yes drops them all). Nothing was changed.",
                code: "unsupportedStore"
            )
        }
        try store.checkMaxAge(options.maxAge)
        let contents = try store.contents(
            verifying: false,
            defaultMaxAge: options.maxAge,
            progress: Progress(requested: options.progress, verb: "read")
        )
        let victims = plan(contents.rows, now: Date(), maxSize: options.maxSize, maxCount: options.maxCount)
        var removed = victims
        var failed: [(row: EntryRow, error: ToolError)] = []
        if !options.dryRun, !victims.isEmpty {
            let removal = try store.remove(victims.map(\.row), whileReleased: whileReleased)
            let files = Set(removal.removed.map(\.file))
            removed = victims.filter { files.contains($0.row.file) }
            failed = removal.failed
        }
        return Outcome(
            store: store,
            removed: removed,
            skippedCount: victims.count - removed.count - failed.count,
            sound: contents.rows.filter { $0.problem == nil },
            failed: failed
        )
    }

    /// The `--json` report of a prune.
    static func json(_ outcome: Outcome, dryRun: Bool) -> JSONValue {
        .object([
            "command": .string("prune"),
            "store": Output.store(outcome.store),
            "dryRun": .bool(dryRun),
            "removed": .array(
                outcome.removed.map { victim in
                    .object([
                        "key": .optional(victim.row.key), "file": .string(victim.row.file),
                        "size": .int(victim.row.size), "reason": .string(victim.reason),
                    ])
                }
            ),
            "failed": .array(
                outcome.failed.map { failed in
                    .object([
                        "key": .optional(failed.row.key), "file": .string(failed.row.file),
                        "code": .string(failed.error.code), "message": .string(failed.error.message),
                    ])
                }
            ),
            "summary": .object([
                "removedCount": .int(outcome.removed.count), "removedSize": .int(outcome.removedSize),
                "remainingCount": .int(outcome.remainingCount), "remainingSize": .int(outcome.remainingSize),
                "skippedCount": .int(outcome.skippedCount), "failedCount": .int(outcome.failed.count),
            ]),
            "error": outcome.failure.map(StrataTool.errorObject) ?? .null,
        ])
    }

    /// What goes: every expired entry, then the least recently used while the rest is over a limit.
    /// Damaged entries are left to `verify --repair`.
    static func plan(_ rows: [EntryRow], now: Date, maxSize: Int?, maxCount: Int?) -> [Victim] {
        let sound = rows.filter { $0.problem == nil }.sorted { $0.recency < $1.recency }
        var victims: [Victim] = []
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
