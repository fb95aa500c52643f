import Foundation
import StrataFuzzTargets
import Testing

/// Replays every fuzz target's checked-in seed corpus, so that an input that once broke a parser fails
/// `swift test` too, not only a fuzz run.
@Suite struct CorpusReplayTests {
    /// `Tests/Fuzz/Corpus`, found from this file.
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    /// Every target this build holds (`postgres-payload` with the `Postgres` trait: CI replays it in the traits' run).
    @Test(arguments: FuzzTarget.built)
    func seedCorpusKeepsEveryInvariant(target: FuzzTarget) throws {
        let files = try FuzzTarget.inputs(at: [Self.corpus.appendingPathComponent(target.rawValue).path])
        #expect(files.count >= 10, "a seed corpus of a few dozen inputs")
        for (file, failure) in try target.replay(files) {
            Issue.record("\(file.lastPathComponent): \(failure)")
        }
    }
}
