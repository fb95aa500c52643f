import Foundation
import Strata

/// `strata verify <folder> [--repair] [--json]`: reads every entry in full and reports damaged ones; exit code
/// 1 when any (or, with `--repair`, when any remain after the repair).
enum Verify {
    static func run(_ options: Options) throws -> Int32 {
        let store = try StrataTool.store(options, access: options.repair ? .readWrite : .readOnly)
        let contents = try check(store, options)
        let damaged = contents.rows.filter { $0.problem != nil }
        var remaining: Store.Contents?
        if options.repair, !damaged.isEmpty || contents.indexProblem != nil {
            try store.repair(damaged)
            // A JSON-file store's inspector gave the folder up to the store for the repair: check through a new one.
            let repaired = if case .file = store { store } else { try StrataTool.store(options, access: .readOnly) }
            remaining = try check(repaired, options)
        }
        let remainingDamaged = remaining.map {
            $0.rows.filter { $0.problem != nil }.count + ($0.indexProblem == nil ? 0 : 1)
        }
        let failed = remainingDamaged.map { $0 > 0 } ?? (!damaged.isEmpty || contents.indexProblem != nil)
        if options.json {
            try Output.json(
                .object([
                    "command": .string("verify"),
                    "store": Output.store(store),
                    "checked": .int(contents.rows.count),
                    "corrupt": .array(
                        damaged.map { row in
                            .object([
                                "key": .optional(row.key), "file": .string(row.file),
                                "problem": .optional(row.problem),
                            ])
                        }
                    ),
                    "indexProblem": .optional(contents.indexProblem),
                    "orphans": .array(contents.orphans.map { .string($0) }),
                    "repaired": .bool(remaining != nil),
                    "remainingCorrupt": remainingDamaged.map { .int($0) } ?? .null,
                    "ok": .bool(!failed),
                ])
            )
            return failed ? 1 : 0
        }
        Output.storeLine(store)
        Output.line("Checked \(Output.grouped(contents.rows.count)) entries: \(damaged.count) corrupt")
        if let problem = contents.indexProblem { Output.line("Index: \(Output.plain(problem))") }
        if !damaged.isEmpty {
            Output.line()
            Output.table(
                ["FILE", "KEY", "PROBLEM"],
                damaged.map { [$0.file, Output.cell($0.key), Output.plain($0.problem ?? "")] }
            )
        }
        if !contents.orphans.isEmpty {
            Output.line(
                "Orphan files (no index record; the store's cleanup takes them back as entries): \(contents.orphans.count)"
            )
        }
        if let remainingDamaged {
            Output.line()
            let action =
                store.kind == "file"
                ? "removed the damaged entry files (set aside as <name>.damaged-<hex> those whose trailer does not "
                    + "prove the store wrote them)"
                : "moved the damaged files aside"
            Output.line("Repaired: \(action); \(remainingDamaged) problems remain")
        } else if failed {
            Output.line()
            Output.line(
                "Run '\(Invocation.name) verify --repair \(Output.plain(options.folder ?? ""))' to repair them."
            )
        }
        return failed ? 1 : 0
    }

    private static func check(_ store: Store, _ options: Options) throws -> Store.Contents {
        try store.contents(
            verifying: true,
            defaultMaxAge: nil,
            progress: Progress(requested: options.progress, verb: "checked")
        )
    }
}
