import Foundation
import StrataSupport
import Testing

@testable import StrataFile

/// Entries written by an older layout: the trailer's version decides whether an entry is read.
struct FileDataSourceTrailerVersionTests {
    @Test func anEntryOfTheOlderTrailerVersionIsAMissAndIsRemoved() throws {
        // Given an entry whose trailer is intact but says version 1 (an xxHash64 content hash)
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore()
        try store?.setValue(.pattern(1_000), forKey: "old")
        try store?.setValue(.pattern(500, seed: 3), forKey: "new")
        store = nil
        let name = EntryName(key: "old").fileName
        let file = folder.storeURL().appendingPathComponent(name)
        var bytes = [UInt8](try Data(contentsOf: file))
        let trailerLength = bytes.withUnsafeBytes {
            Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt32.self)))
        }
        let start = bytes.count - 8 - trailerLength
        #expect(bytes[start] == EntryTrailer.version)
        bytes[start] = 1
        let checksum = bytes[start..<(bytes.count - 16)].withUnsafeBytes { XXHash64.hash($0) }
        withUnsafeBytes(of: checksum.littleEndian) {
            bytes.replaceSubrange((bytes.count - 16)..<(bytes.count - 8), with: $0)
        }
        try Data(bytes).write(to: file)

        // When the store opens, then the old entry is a miss, removed and counted, and the other entry stays
        let reopened = try folder.makeStore()
        #expect(reopened.value(forKey: "old") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(reopened.corruptEntriesRemoved == 1)
        #expect(reopened.value(forKey: "new") == .pattern(500, seed: 3))
    }

    /// An entry a later Strata wrote in a layout this one does not know (a downgrade: a rolled-back build opening the
    /// store a newer one wrote) is a miss, left as it is: the newer build reads it again once it is back. Before, it
    /// read as damage and was removed, with every entry the newer build had written.
    @Test func anEntryOfALaterTrailerVersionIsAMissAndStays() throws {
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore()
        try store?.setValue(.pattern(1_000), forKey: "later")
        try store?.setValue(.pattern(500, seed: 3), forKey: "known")
        store = nil
        let file = folder.storeURL().appendingPathComponent(EntryName(key: "later").fileName)
        try TrailerSurgery.editTrailer(of: file) { $0[0] = EntryTrailer.taggedVersion + 1 }
        let written = try Data(contentsOf: file)

        var reopened: FileDataSource? = try folder.makeStore()
        #expect(reopened?.value(forKey: "later") == nil)
        #expect(try Data(contentsOf: file) == written, "left as it is")
        #expect(reopened?.corruptEntriesRemoved == 0)
        #expect(reopened?.value(forKey: "known") == .pattern(500, seed: 3))
        reopened = nil

        // And an inspector's repair (`strata verify --repair`) leaves it too
        let inspector = try FileStoreInspector(folder: folder.storeURL(), access: .readWrite)
        let reported = inspector.entries().filter { $0.problem != nil }
        #expect(reported.map(\.fileName) == [file.lastPathComponent])
        #expect(try inspector.remove(fileNames: reported.map(\.fileName)) == 0)
        #expect(try Data(contentsOf: file) == written)
    }
}
