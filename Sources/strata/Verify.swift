import Foundation
import Strata

/// `strata verify <folder> [--repair] [--json]`: reads every entry in full and reports damaged ones, and those it
/// could not check; exit code 1 when any (or, with `--repair`, when any remain after the repair).
///
/// An entry it could not check is no damage — an entry file this user cannot read, or a file store's entry a later
/// Strata wrote — and the store itself leaves it as it is: `--repair` does too, and it is listed apart from the corrupt ones.
/// It still fails the verification (exit code 1): the tool cannot vouch for an entry it did not read.
enum Verify {
    static func run(_ options: Options) throws -> Int32 {
        let store = try StrataTool.store(options, access: options.repair ? .readWrite : .readOnly)
        let contents = try check(store, options)
        let damaged = contents.rows.filter { $0.problem != nil && $0.isDamaged }
        var remaining: Store.Contents?
        // A repair that failed part way (a file that cannot be removed) still reports what it did and what remains,
        // then its error (exit code 1), as a prune does.
        var repairFailure: ToolError?
        if options.repair, !damaged.isEmpty || contents.indexProblem != nil {
            do {
                try store.repair(damaged)
            } catch let error as ToolError {
                repairFailure = error
            }
            // A JSON-file store's inspector gave the folder up to the store for the repair: check through a new one.
            let repaired = if case .file = store { store } else { try StrataTool.store(options, access: .readOnly) }
            remaining = try check(repaired, options)
        }
        let remainingDamaged = remaining.map {
            $0.rows.filter { $0.problem != nil && $0.isDamaged }.count + ($0.indexProblem == nil ? 0 : 1)
        }
        let unchecked = (remaining ?? contents).rows.filter { $0.problem != nil && !$0.isDamaged }
        let failed =
            repairFailure != nil || !unchecked.isEmpty
            || (remainingDamaged.map { $0 > 0 } ?? (!damaged.isEmpty || contents.indexProblem != nil))
        if options.json {
            try Output.json(
                .object([
                    "command": .string("verify"),
                    "store": Output.store(store),
                    "checked": .int(contents.rows.count),
                    "corrupt": .array(damaged.map(problemObject)),
                    "unchecked": .array(unchecked.map(problemObject)),
                    "indexProblem": .optional(contents.indexProblem),
                    "orphans": .array(contents.orphans.map { .string($0) }),
                    "repaired": .bool(remaining != nil),
                    "remainingCorrupt": remainingDamaged.map { .int($0) } ?? .null,
                    "error": repairFailure.map(StrataTool.errorObject) ?? .null,
                    "ok": .bool(!failed),
                ])
            )
            return failed ? 1 : 0
        }
        Output.storeLine(store)
        Output.line(
            "Checked \(Output.grouped(contents.rows.count)) entries: \(damaged.count) corrupt"
                + (unchecked.isEmpty ? "" : ", \(unchecked.count) not checked")
        )
        if let problem = contents.indexProblem { Output.line("Index: \(Output.plain(problem))") }
        if !damaged.isEmpty {
            Output.line()
            Output.table(
                ["FILE", "KEY", "PROBLEM"],
                damaged.map { [$0.file, Output.cell($0.key), Output.plain($0.problem ?? "")] }
            )
        }
        if !unchecked.isEmpty {
            Output.line()
            Output.line(
                "Not checked (no damage: the store leaves these as they are, and so does --repair; check them as a "
                    + "user who can read them, or with the Strata that wrote them):"
            )
            Output.table(
                ["FILE", "KEY", "PROBLEM"],
                unchecked.map { [$0.file, Output.cell($0.key), Output.plain($0.problem ?? "")] }
            )
        }
        if !contents.orphans.isEmpty {
            Output.line(
                "Orphan files (no index record; the store's cleanup takes them back as entries): \(contents.orphans.count)"
            )
        }
        if let remaining, let remainingDamaged {
            Output.line()
            Output.line(
                "Repaired: \(action(store, damaged: damaged, before: contents, after: remaining)); "
                    + "\(remainingDamaged) corrupt entries or index problems remain"
                    + (unchecked.isEmpty
                        ? ""
                        : "; \(unchecked.count) entries not checked stay as they are (above): no damage, so no "
                            + "repair touches them")
            )
        } else if !damaged.isEmpty || contents.indexProblem != nil {
            Output.line()
            let folder = options.folder ?? ""
            // A folder whose name holds a control character would be shown with `?` in its place: a command that
            // names another folder. It is then told, not shown.
            let argument = Output.plain(folder) == folder ? Output.shellArgument(folder) : "<the folder>"
            Output.line("To repair them, run: \(Invocation.name) verify --repair \(argument)")
        }
        if let repairFailure { return StrataTool.report(repairFailure, json: false) }
        return failed ? 1 : 0
    }

    /// A corrupt or unchecked entry in the `--json` report.
    private static func problemObject(_ row: EntryRow) -> JSONValue {
        .object(["key": .optional(row.key), "file": .string(row.file), "problem": .optional(row.problem)])
    }

    /// What the repair did, told from the checks before and after it: how many damaged entries went (a file store's
    /// removed or set aside, a JSON-file store's moved aside), and whether a damaged index was rebuilt.
    private static func action(
        _ store: Store,
        damaged: [EntryRow],
        before: Store.Contents,
        after: Store.Contents
    ) -> String {
        let stillDamaged = Set(after.rows.filter { $0.problem != nil && $0.isDamaged }.map(\.file))
        let cleared = damaged.filter { !stillDamaged.contains($0.file) }.count
        if case .file = store {
            return cleared == 0
                ? "removed no entry file"
                : "removed \(Output.grouped(cleared)) damaged entry files (set aside as <name>.damaged-<hex> those "
                    + "whose trailer does not prove the store wrote them)"
        }
        var done = [
            cleared == 0
                ? "moved no entry file aside"
                : "moved \(Output.grouped(cleared)) damaged entry files aside as <name>.corrupt-<date>"
        ]
        if before.indexProblem != nil {
            done.append(after.indexProblem == nil ? "rebuilt the index" : "the index stays damaged")
        }
        return done.joined(separator: "; ")
    }

    private static func check(_ store: Store, _ options: Options) throws -> Store.Contents {
        try store.contents(
            verifying: true,
            defaultMaxAge: nil,
            progress: Progress(requested: options.progress, verb: "checked")
        )
    }
}
