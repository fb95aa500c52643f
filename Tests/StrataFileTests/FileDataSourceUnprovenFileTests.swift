import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

/// Files at entry names (`<32 hex>.strata`) whose contents do not end in a sealed trailer: nothing proves the store
/// wrote them (a user's file, another program's), so they are set aside by a rename, byte for byte, never deleted,
/// and never counted as entries.
struct FileDataSourceUnprovenFileTests {
    /// A name of the store's form that no key of these tests maps to.
    private static let plantedName = "0123456789abcdef0123456789abcdef.strata"

    /// Opening the store, reading, writing, cleaning and an inspector's clear leave a user's file at an entry name
    /// as it was, and the store works around it.
    @Test func anUnparseableFileAtAnEntryNameSurvivesOpeningAndCleaning() throws {
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            try store.setValue(.pattern(100), forKey: "a")
        }
        let planted = Data("the user's notes, not an entry\n".utf8) + Data.pattern(300)
        try planted.write(to: folder.storeURL().appendingPathComponent(Self.plantedName))
        do {
            let store = try folder.makeStore()
            #expect(store.count == 1)
            #expect(store.value(forKey: "a") == .pattern(100))
            try store.setValue(.pattern(50), forKey: "b")
            #expect(store.value(forKey: "b") == .pattern(50))
            try store.removeExpired()
            store.flush()
        }
        #expect(try folder.survivor(of: Self.plantedName) == planted)
        try FileStoreInspector(folder: folder.storeURL()).removeAllEntries()
        #expect(try folder.survivor(of: Self.plantedName) == planted)
        let reopened = try folder.makeStore()
        #expect(reopened.count == 0)
    }

    /// A file too short for any trailer, and one ending in the trailer's magic with a checksum that does not match:
    /// neither is proven the store's, both survive.
    @Test func aShortFileAndAForgedFooterSurviveOpening() throws {
        let folder = try TemporaryFolder()
        do { _ = try folder.makeStore() }
        let shortName = "fedcba9876543210fedcba9876543210.strata"
        let short = Data("hi".utf8)
        try short.write(to: folder.storeURL().appendingPathComponent(shortName))
        // 200 bytes whose last eight claim a 100-byte trailer and end in "STRF": the checksum cannot match.
        var forged = Data.pattern(192)
        forged.append(contentsOf: [100, 0, 0, 0] + Array("STRF".utf8))
        try forged.write(to: folder.storeURL().appendingPathComponent(Self.plantedName))

        let store = try folder.makeStore()
        #expect(store.count == 0)
        try store.setValue(.pattern(10), forKey: "k")
        #expect(store.value(forKey: "k") == .pattern(10))
        #expect(try folder.survivor(of: shortName) == short)
        #expect(try folder.survivor(of: Self.plantedName) == forged)
    }

    /// An entry's file replaced by a user's file while the store is open: the read is a miss and the user's file is
    /// set aside, not deleted.
    @Test func anEntryFileReplacedByAForeignFileIsSetAsideOnRead() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try store.setValue(.pattern(100), forKey: "a")
        let name = try #require(try folder.entryFiles().first)
        let url = folder.storeURL().appendingPathComponent(name)
        let length = try Data(contentsOf: url).count
        let foreign = Data(repeating: 0x41, count: length)
        try foreign.write(to: url)

        #expect(store.value(forKey: "a") == nil)
        #expect(try folder.survivor(of: name) == foreign)
        try store.setValue(.pattern(20), forKey: "a")
        #expect(store.value(forKey: "a") == .pattern(20))
    }

    /// A user's file written over `key`'s entry file (same length) while the store is open, found by no read: its
    /// name and contents.
    private func replaceEntryFile(in folder: TemporaryFolder) throws -> (name: String, data: Data) {
        let name = try #require(try folder.entryFiles().first)
        let url = folder.storeURL().appendingPathComponent(name)
        let data = Data(repeating: 0x42, count: try Data(contentsOf: url).count)
        try data.write(to: url)
        return (name, data)
    }

    /// `removeValue(forKey:)` of an entry whose file a user's file replaced: the entry goes, the user's file is set
    /// aside (reported), not deleted.
    @Test func removingAnEntryWhoseFileWasReplacedSetsTheUsersFileAside() throws {
        let folder = try TemporaryFolder()
        let log = DiagnosticsLog()
        let store = try folder.makeStore(diagnostics: log.record)
        try store.setValue(.pattern(100), forKey: "a")
        let (name, data) = try replaceEntryFile(in: folder)

        #expect(try store.removeValue(forKey: "a"))

        #expect(try folder.survivor(of: name) == data)
        #expect(try folder.entryFiles().isEmpty)
        #expect(log.messages.contains { $0.contains("set aside as \(name).damaged-") })
        #expect(store.count == 0)
    }

    /// Eviction (here by the count limit) of an entry whose file a user's file replaced sets that file aside; a
    /// sealed entry file is still removed.
    @Test func evictingAnEntryWhoseFileWasReplacedSetsTheUsersFileAside() throws {
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        let store = try folder.makeStore(clock: clock, countLimit: 1)
        try store.setValue(.pattern(100), forKey: "a")
        let (name, data) = try replaceEntryFile(in: folder)
        clock.advance(by: .seconds(1))

        try store.setValue(.pattern(50), forKey: "b")
        clock.advance(by: .seconds(1))
        try store.setValue(.pattern(60), forKey: "c")

        #expect(try folder.survivor(of: name) == data)
        #expect(try folder.entryFiles().count == 1, "b's sealed file is evicted, c's stays")
        #expect(store.value(forKey: "c") == .pattern(60))
    }

    /// A user's file put at the name of an entry the store does not hold, after it opened: the put of that key sets
    /// the user's file aside (reported) rather than renaming over it, and holds its own value.
    @Test func aPutSetsAsideAUsersFilePlantedAtItsNewEntrysName() throws {
        let folder = try TemporaryFolder()
        do { try folder.makeStore("probe").setValue(.pattern(1), forKey: "k") }
        let name = try #require(try folder.entryFiles("probe").first)
        let log = DiagnosticsLog()
        let store = try folder.makeStore(diagnostics: log.record)
        let planted = Data("the user's notes, not an entry\n".utf8)
        try planted.write(to: folder.storeURL().appendingPathComponent(name))

        try store.setValue(.pattern(40), forKey: "k")

        let aside = try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
            .filter { $0.hasPrefix(name + ".damaged-") }
        try #require(aside.count == 1, "the user's file is gone: \(aside)")
        #expect(try Data(contentsOf: folder.storeURL().appendingPathComponent(aside[0])) == planted)
        #expect(try folder.entryFiles() == [name])
        #expect(store.value(forKey: "k") == .pattern(40))
        #expect(log.messages.contains { $0.contains("set aside as \(name).damaged-") })
    }
}
