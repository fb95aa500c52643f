import Foundation

/// Reports progress of a long walk on standard error: a line every ``interval`` entries, only when standard
/// error is a terminal or `--progress` asks for it. Standard output stays clean for `--json`.
final class Progress {
    /// How many entries between two reports: 10,000, or `STRATA_PROGRESS_INTERVAL` (for tests).
    private let interval: Int

    private let enabled: Bool
    private let verb: String
    private var last = 0

    init(requested: Bool, verb: String) {
        enabled = requested || isatty(STDERR_FILENO) == 1
        self.verb = verb
        interval =
            ProcessInfo.processInfo.environment["STRATA_PROGRESS_INTERVAL"].flatMap { Int($0) }.map { max(1, $0) }
            ?? 10_000
    }

    /// Hears that `count` entries are done.
    func tick(_ count: Int) {
        guard enabled, count - last >= interval else { return }
        last = count
        Output.error("strata: \(verb) \(Output.grouped(count)) entries…")
    }

    /// Reports the total when the walk was long enough to report progress.
    func finish() {
        guard enabled, last > 0 else { return }
        Output.error("strata: done")
    }
}
