import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataFile

/// A metadata renewal interrupted at its one moment between steps, as a crash would leave the folder: the entry
/// still reads, with its old metadata or its new, never a miss.
struct FileDataSourceRenewalCrashTests {
    /// A renewal whose trailer is shorter (a long ETag replaced by a short one): the folder taken as it is between
    /// the renewal's steps opens with the entry's data and one of its two ETags.
    @Test func aShrinkingRenewalInterruptedMidwayKeepsTheEntry() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let longTag = "\"" + String(repeating: "e", count: 300) + "\""
        try store.setValue(.pattern(1_000), forKey: "k", options: .init(eTag: longTag))
        let image = folder.storeURL("image")
        FileDataSource.watchRenewals(of: store.folder.identity) {
            // The folder as a crash at this moment would leave it.
            try? FileManager.default.copyItem(at: folder.storeURL(), to: image)
        }
        defer { FileDataSource.watchRenewals(of: store.folder.identity, nil) }

        #expect(try store.renewMetadata(EntryMetadata(eTag: "\"s\""), forKey: "k"))
        #expect(store.entry(forKey: "k")?.metadata.eTag == "\"s\"")

        #expect(FileManager.default.fileExists(atPath: image.path), "the renewal never reached its midway point")
        let reopened = try folder.makeStore("image")
        let entry = try #require(reopened.entry(forKey: "k"), "the interrupted renewal lost the entry")
        #expect(entry.value == .pattern(1_000))
        #expect([longTag, "\"s\""].contains(entry.metadata.eTag))
    }
}
