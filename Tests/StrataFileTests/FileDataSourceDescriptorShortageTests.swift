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
        let executable = try #require(
            CrashWriterFixture.url(of: "StrataFileCrashWriter"),
            "build the StrataFileCrashWriter fixture"
        )

        // When another process opens it with every descriptor taken but 0, 1, … 24 of them
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = [folder.url.path, "store", "descriptors", "24"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let said = String(decoding: output.fileHandleForReading.readToEndAcrossInterrupts(), as: UTF8.self)
        process.waitUntilExit()
        let outcomes = said.split(separator: "\n").map { $0.split(separator: ": ", maxSplits: 1).last ?? "" }

        // Then each open has the 20 entries, or failed with an I/O error that says why; with enough descriptors
        // it has them all
        #expect(process.terminationStatus == 0)
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
