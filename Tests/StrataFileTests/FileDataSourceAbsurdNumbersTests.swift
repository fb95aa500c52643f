import Foundation
import Strata
import Testing

@testable import StrataFile

/// Entry trailers and access records whose checksums hold but whose numbers no store writes: a write sequence or
/// an access sequence up to `UInt64.max` (the next sequence trapped on overflow at the first read or write), a
/// payload size up to `Int.max` (the file's expected length overflowed at every open), a trailer length of
/// gigabytes (read whole at every open).
struct FileDataSourceAbsurdNumbersTests {
    /// A store holding "a" and "b", whose "a" trailer is then edited by `edit` (its fields, from the version on).
    private func storeWithEditedEntry(_ edit: @escaping (inout [UInt8]) -> Void) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try store.setValue(Data("alpha".utf8), forKey: "a")
        let before = Set(try folder.entryFiles())
        try store.setValue(Data("bravo".utf8), forKey: "b")
        let bFile = try #require(Set(try folder.entryFiles()).subtracting(before).first)
        let aFile = try #require(try folder.entryFiles().first { $0 != bFile })
        try TrailerSurgery.editTrailer(of: folder.storeURL().appendingPathComponent(aFile), edit)
        return folder
    }

    private static func setField(_ value: UInt64, at offset: Int, of fields: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { fields.replaceSubrange(offset..<(offset + 8), with: $0) }
    }

    /// Just under the parser's ceiling too: taken in, the entry raised the counter so far that every later write
    /// got a sequence the parser refuses, read as damage and was removed (a `.durable` write included).
    @Test(arguments: [
        UInt64.max, EntryTrailer.sequenceCeiling, EntryTrailer.sequenceCeiling - 1, EntryTrailer.openingSequenceLimit,
    ])
    func aWriteSequenceNoStoreOpensWithIsDamageAndLaterWritesStay(_ sequence: UInt64) throws {
        let folder = try storeWithEditedEntry { Self.setField(sequence, at: 32, of: &$0) }
        do {
            let store = try folder.makeStore(durability: .durable)
            #expect(store.value(forKey: "a") == nil)
            #expect(store.value(forKey: "b") == Data("bravo".utf8))
            try store.setValue(Data("charlie".utf8), forKey: "c")
            #expect(store.value(forKey: "c") == Data("charlie".utf8))
            #expect(store.keysByRecency == ["c", "b"])
        }
        let reopened = try folder.makeStore()
        #expect(reopened.value(forKey: "c") == Data("charlie".utf8))
        try reopened.setValue(Data("delta".utf8), forKey: "d")
        #expect(reopened.value(forKey: "d") == Data("delta".utf8))
    }

    @Test(arguments: [UInt64(Int.max), UInt64(EntryTrailer.maximumPayloadSize + 1)])
    func aPayloadSizeNoStoreWritesIsDamage(_ size: UInt64) throws {
        let folder = try storeWithEditedEntry { Self.setField(size, at: 16, of: &$0) }
        let store = try folder.makeStore()
        #expect(store.value(forKey: "a") == nil)
        #expect(store.value(forKey: "b") == Data("bravo".utf8))
        #expect(store.count == 1)
    }

    /// Just under the parser's ceiling too: the record raised the counter so far that every later write was
    /// removed as damage at its first read.
    @Test(arguments: [UInt64.max, EntryTrailer.sequenceCeiling - 1, EntryTrailer.openingSequenceLimit])
    func anAccessRecordNoStoreOpensWithIsIgnored(_ sequence: UInt64) throws {
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            try store.setValue(Data("alpha".utf8), forKey: "a")
            try store.setValue(Data("bravo".utf8), forKey: "b")
        }
        // Given an access journal whose record of "a" says it was used at `sequence`
        let journalURL = folder.storeURL().appendingPathComponent(AccessJournal.fileName)
        let entry = EntryIndex.Entry(
            name: EntryName(key: "a"),
            trailer: TrailerSurgery.sample,
            lastAccess: Date(timeIntervalSince1970: 5_000),
            accessSequence: sequence,
            fileLength: 0,
            stamp: nil
        )
        try Data(AccessJournal.encode([entry])).write(to: journalURL)

        // When it opens, then "a" keeps the order of its write, and new uses count on
        do {
            let store = try folder.makeStore()
            #expect(store.keysByRecency == ["b", "a"])
            #expect(store.value(forKey: "a") == Data("alpha".utf8))
            try store.setValue(Data("charlie".utf8), forKey: "c")
            #expect(store.keysByRecency == ["c", "a", "b"])
            #expect(store.value(forKey: "c") == Data("charlie".utf8))
        }
        #expect(try folder.makeStore().value(forKey: "c") == Data("charlie".utf8))
    }

    /// A record sealed again with a last access that is not a finite number (NaN, ±infinity): the entry keeps the
    /// time and order of its write, as for a sequence past the ceiling; before, the store and the `strata` tool
    /// showed the NaN as the entry's last use.
    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func anAccessRecordWithATimeThatIsNotFiniteIsIgnored(_ seconds: Double) throws {
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            try store.setValue(Data("alpha".utf8), forKey: "a")
        }
        let created = try #require(try folder.makeStore().info(forKey: "a")?.created)
        let journal = AccessJournal.encode([
            (
                EntryName(key: "a"),
                AccessJournal.Record(accessSequence: 1_000, lastAccess: Date(timeIntervalSince1970: seconds))
            )
        ])
        try Data(journal).write(to: folder.storeURL().appendingPathComponent(AccessJournal.fileName))

        let store = try folder.makeStore()
        let info = try #require(store.info(forKey: "a"))

        // Compared as numbers: describing a `Date` that is not finite traps in Foundation.
        #expect(info.lastAccess.timeIntervalSince1970.isFinite)
        #expect(info.lastAccess.timeIntervalSince1970 == created.timeIntervalSince1970)
    }

    /// The control of the test above: a record with a finite time and a later sequence than the write is taken.
    @Test func anAccessRecordWithAFiniteTimeIsTaken() throws {
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            try store.setValue(Data("alpha".utf8), forKey: "a")
        }
        let used = Date(timeIntervalSince1970: 2_000_000_000)
        let journal = AccessJournal.encode([
            (EntryName(key: "a"), AccessJournal.Record(accessSequence: 1_000, lastAccess: used))
        ])
        try Data(journal).write(to: folder.storeURL().appendingPathComponent(AccessJournal.fileName))

        #expect(try folder.makeStore().info(forKey: "a")?.lastAccess == used)
    }

    /// Data sizes whose sum passes `Int.max` (about 8.4 million sealed sparse 1 TiB files, too many to plant here,
    /// so given to the index as it is given them at open): the total saturates and comes back down exactly as
    /// entries go; the addition trapped at every open.
    @Test func dataSizesThatAddUpPastIntMaxSaturateTheTotal() {
        var index = EntryIndex()
        let half = Int.max / 2 + 1
        for (key, size) in [("a", half), ("b", half), ("c", 7)] {
            var trailer = TrailerSurgery.sample
            trailer.key = key
            trailer.payloadSize = size
            index.insert(
                EntryIndex.Entry(
                    name: EntryName(key: key),
                    trailer: trailer,
                    lastAccess: trailer.created,
                    accessSequence: index.nextSequence(),
                    fileLength: 0,
                    stamp: nil
                )
            )
        }
        #expect(index.totalSize == Int.max)

        index.remove(EntryName(key: "a"))
        #expect(index.totalSize == half + 7)
        index.remove(EntryName(key: "b"))
        #expect(index.totalSize == 7)
    }

    @Test func aTrailerLongerThanAnyStoreWritesIsDamageAndTooLongAKeyIsRefused() throws {
        // A footer claiming a trailer past the limit is no footer
        var footer = [UInt8](repeating: 0, count: 8)
        footer.withUnsafeMutableBytes {
            $0.storeBytes(of: UInt32(EntryTrailer.maximumLength).littleEndian, toByteOffset: 0, as: UInt32.self)
            $0.storeBytes(of: EntryTrailer.magic.littleEndian, toByteOffset: 4, as: UInt32.self)
        }
        #expect(footer.withUnsafeBytes { EntryTrailer.trailerLength(footer: $0) } == nil)

        // And a key that would make one is refused before anything is written
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let key = String(repeating: "k", count: EntryTrailer.maximumLength)
        #expect(throws: StrataError.self) { try store.setValue(Data("x".utf8), forKey: key) }
        #expect(try folder.entryFiles().isEmpty)
        #expect(store.count == 0)
    }
}
