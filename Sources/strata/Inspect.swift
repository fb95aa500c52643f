import Foundation
import Strata
import StrataOffline

/// `strata inspect <folder> [--limit N] [--max-age S] [--json]`: every entry, most recently used first, then a
/// summary.
enum Inspect {
    static func run(_ options: Options) throws -> Int32 {
        let store = try StrataTool.store(options, access: .readOnly)
        try store.checkMaxAge(options.maxAge)
        let contents = try store.contents(
            verifying: false,
            defaultMaxAge: options.maxAge,
            progress: Progress(requested: options.progress, verb: "read")
        )
        let now = Date()
        let rows = contents.rows.sorted { $0.recency > $1.recency }
        let listed = options.limit.map { Array(rows.prefix($0)) } ?? rows
        let sound = rows.filter { $0.problem == nil }
        // An entry this user cannot read (or a later Strata wrote) is no damage: the store leaves it as it is.
        let damaged = rows.filter { $0.problem != nil && $0.isDamaged }.count
        let unreadable = rows.count - sound.count - damaged
        let created = sound.compactMap(\.created)
        let summary: [String: JSONValue] = [
            "count": .int(sound.count),
            "listed": .int(listed.count),
            "totalSize": .int(sound.totalSize),
            "expired": .int(sound.filter { $0.isExpired(at: now) }.count),
            "damaged": .int(damaged),
            "unreadable": .int(unreadable),
            "oldestCreated": Output.isoDate(created.min()),
            "newestCreated": Output.isoDate(created.max()),
            "indexProblem": .optional(contents.indexProblem),
            "orphans": .int(contents.orphans.count),
        ]
        if options.json {
            try Output.json(
                .object([
                    "command": .string("inspect"),
                    "store": Output.store(store),
                    "entries": .array(listed.map { .object(StrataTool.json($0, now: now)) }),
                    "summary": .object(summary),
                ])
            )
            return 0
        }
        Output.storeLine(store)
        if case .outbox = store, !listed.isEmpty {
            Output.line()
            Self.writes(listed.sorted { ($0.write?.sequence ?? 0) < ($1.write?.sequence ?? 0) })
        } else if !listed.isEmpty {
            Output.line()
            Output.table(
                ["KEY", "SIZE", "CREATED", "EXPIRES", "LAST ACCESS", "ETAG"],
                listed.map { row in
                    [
                        row.problem == nil ? Output.cell(row.key) : row.unreadableLabel,
                        Output.size(row.size),
                        Output.date(row.created),
                        row.isExpired(at: now) ? "expired" : Output.date(row.expiresAt),
                        Output.date(row.lastAccess),
                        Output.cell(row.eTag, limit: 40),
                    ]
                },
                rightAligned: [1]
            )
        }
        if listed.count < rows.count {
            Output.line("… \(Output.grouped(rows.count - listed.count)) more (--limit \(listed.count))")
        }
        Output.line()
        let total = sound.totalSize
        Output.line(
            "Entries: \(Output.grouped(sound.count))   Size: \(Output.size(total)) (\(Output.grouped(total)) bytes)"
                + "   Expired: \(Output.grouped(sound.filter { $0.isExpired(at: now) }.count))"
                + "   Damaged: \(Output.grouped(damaged))"
                + (unreadable == 0 ? "" : "   Unreadable: \(Output.grouped(unreadable))")
        )
        if let oldest = created.min(), let newest = created.max() {
            Output.line("Created: \(Output.date(oldest)) … \(Output.date(newest)) (UTC)")
        }
        if let problem = contents.indexProblem { Output.line("Index: \(Output.plain(problem))") }
        if !contents.orphans.isEmpty {
            Output.line(
                "Orphan files (no index record; the store's cleanup takes them back as entries): \(contents.orphans.count)"
            )
        }
        return 0
    }

    /// An offline outbox's queued writes, oldest first: what each does, its attempts, its state (set aside, or pending
    /// after main was unreachable or answered with an error) and its last error.
    private static func writes(_ rows: [EntryRow]) {
        Output.table(
            ["SEQ", "KEY", "WRITE", "ATTEMPTS", "STATE", "CREATED", "LAST ERROR"],
            rows.map { row in
                guard let write = row.write else {
                    return ["-", row.unreadableLabel, "-", "-", "-", "-", Output.cell(row.problem)]
                }
                return [
                    String(write.sequence), Output.cell(write.key, limit: 40), write.operation.rawValue,
                    String(write.attempts), state(write),
                    Output.date(row.created), Output.cell(write.lastError, limit: 80),
                ]
            },
            rightAligned: [0, 3]
        )
    }

    /// A queued write's state for the table: set aside, or pending and why its last attempt failed.
    private static func state(_ write: PendingWrite) -> String {
        if write.isSetAside { return "set aside" }
        switch write.lastFailure {
        case .unreachable: return "pending (main unreachable)"
        case .answered: return "pending (main refused)"
        case nil: return "pending"
        }
    }
}
