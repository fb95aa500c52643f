import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reports progress of a long walk on standard error: a line every ``interval`` entries, only when standard
/// error is a terminal or `--progress` asks for it. Standard output stays clean for `--json`.
final class Progress {
    /// How many entries between two reports.
    static let interval = 10_000

    private let enabled: Bool
    private let verb: String
    private var last = 0

    init(requested: Bool, verb: String) {
        enabled = requested || isatty(STDERR_FILENO) == 1
        self.verb = verb
    }

    /// Hears that `count` entries are done.
    func tick(_ count: Int) {
        guard enabled, count - last >= Self.interval else { return }
        last = count
        Output.error("strata: \(verb) \(Output.grouped(count)) entries…")
    }

    /// Reports the total when the walk was long enough to report progress.
    func finish() {
        guard enabled, last > 0 else { return }
        Output.error("strata: done")
    }
}
