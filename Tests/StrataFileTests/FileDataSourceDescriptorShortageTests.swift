import Foundation
import Strata
import StrataFile
import StrataTestSupport
import Testing

/// A store opened while the process is short of descriptors: it opens with every entry or fails with `.io`, never
/// with an index missing entries (which kept them out of the limits and out of `removeAll()`'s reach, and brought
/// them back at the next open).
struct FileDataSourceDescriptorShortageTests {
    @Test func anOpenShortOfDescriptorsHasEveryEntryOrFails() throws {
        // Given a store of 20 entries, closed
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            for index in 0..<20 { try store.setValue(Data("value \(index)".utf8), forKey: "k\(index)") }
        }

        // When another process opens it with every descriptor taken but 0, 1, … 24 of them
        let (status, said) = try runCrashWriter(in: folder, "descriptors", "24")
        let outcomes = said.split(separator: "\n").map { $0.split(separator: ": ", maxSplits: 1).last ?? "" }

        // Then each open has the 20 entries, or failed with an I/O error that says why; with enough descriptors
        // it has them all
        #expect(status == 0)
        #expect(outcomes.count == 25, "\(said)")
        for outcome in outcomes {
            #expect(outcome == "20" || outcome.hasPrefix("error io"), "\(said)")
        }
        #expect(outcomes.first?.hasPrefix("error io") == true, "\(said)")
        #expect(outcomes.last == "20", "\(said)")
        #expect(said.contains("Too many open files"), "\(said)")

        // And the store, opened as usual, still has them all
        let store = try folder.makeStore()
        #expect(store.count == 20)
    }
}

/// A read of an entry the store holds, while the process is short of descriptors: `get` fails with `.io`, never
/// with `notFound` (which sent a repository to main for each cached entry, as if the cache were empty), and
/// `value(forKey:)`, which cannot throw, answers `nil` with a report.
struct FileDataSourceReadDescriptorShortageTests {
    @Test(.timeLimit(.minutes(1)))
    func aReadShortOfDescriptorsFailsWithIOInsteadOfMissing() throws {
        // Given a store that holds "k", closed
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            try store.setValue(Data("cached".utf8), forKey: "k")
        }

        // When another process opens it, takes every descriptor it has left, and reads "k"
        let (status, said) = try runCrashWriter(in: folder, "read-descriptors", "0")
        let lines = said.split(separator: "\n").map(String.init)

        // Then `get` fails with an I/O error that says why, `value(forKey:)` answers nil and reports it, and a
        // repository over the store returns the error without asking main
        #expect(status == 0)
        #expect(lines.count == 4, "\(said)")
        #expect(lines.first?.hasPrefix("get: error io") == true, "\(said)")
        #expect(lines.first?.contains("Too many open files") == true, "\(said)")
        #expect(lines.dropFirst().first == "value: nil", "\(said)")
        #expect(lines.dropFirst(2).first == "reported: io", "\(said)")
        #expect(lines.last?.hasPrefix("repository: error io") == true, "\(said)")
        #expect(lines.last?.hasSuffix("main asked 0") == true, "\(said)")

        // And the entry is still there
        let store = try folder.makeStore()
        #expect(store.value(forKey: "k") == Data("cached".utf8))
    }
}

/// Runs the `StrataFileCrashWriter` fixture on the store `store` in `folder` in `mode` with `argument`, and returns
/// its exit status and what it printed.
private func runCrashWriter(
    in folder: TemporaryFolder,
    _ mode: String,
    _ argument: String
) throws -> (status: Int32, said: String) {
    let executable = try #require(
        CrashWriterFixture.url(of: "StrataFileCrashWriter"),
        "build the StrataFileCrashWriter fixture"
    )
    let process = ChildProcess()
    process.executableURL = executable
    process.arguments = [folder.url.path, "store", mode, argument]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let said = String(decoding: output.fileHandleForReading.readToEndAcrossInterrupts(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, said)
}
