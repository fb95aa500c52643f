import Foundation
import Strata
import StrataFile
import StrataTestSupport
import Testing

/// A put and a renewal of the same key that overlap land as one of their serial orders: the put is never lost.
struct FileDataSourceRenewalRaceTests {
    private static func makeStore(_ folder: TemporaryFolder, clock: SteppingClock) throws -> FileDataSource {
        try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "store", clock: clock))
    }

    @Test func aPutOverlappedByARenewalOfTheSameKeyIsNotLost() throws {
        // Given an entry, and a renewal of it (a 304, say) that lands while a put of new data writes its file
        let folder = try TemporaryFolder()
        let clock = SteppingClock()
        var store: FileDataSource? = try Self.makeStore(folder, clock: clock)
        try store?.setValue(Data("v1".utf8), forKey: "k", options: .init(eTag: "\"v1\""))
        let version = try #require(store?.info(forKey: "k")?.contentHash)
        let renewal = EntryMetadata(storedAt: clock.date, eTag: "\"v1\"")
        let renewed = Locked(false)
        clock.run(atReading: 2) { [store] in
            let done = try? store?.renewMetadata(renewal, attributes: nil, ifContentHash: version, forKey: "k")
            renewed.withLock { $0 = done == true }
        }

        // When the put commits
        try store?.setValue(Data("v2".utf8), forKey: "k", options: .init(eTag: "\"v2\""))

        // Then the store holds the put's data and metadata (the renewal came first), and so does a reopen
        #expect(clock.ran && renewed.withLock { $0 })
        #expect(store?.value(forKey: "k") == Data("v2".utf8))
        #expect(store?.info(forKey: "k")?.eTag == "\"v2\"")
        #expect(try folder.entryFiles().count == 1)
        store = nil
        let reopened = try Self.makeStore(folder, clock: SteppingClock())
        #expect(reopened.value(forKey: "k") == Data("v2".utf8))
        #expect(reopened.info(forKey: "k")?.eTag == "\"v2\"")
    }

    /// A renewal made from a read (a cache's freshness record, extended) that names the attributes it read does not
    /// land on the same bytes written again since with other attributes (a newer download's directives): the check
    /// is the store's, under its lock, so nothing lands between it and the write. (Before, a cache checked the
    /// attributes itself and then renewed by content hash only: a write of the same bytes between the two was
    /// overwritten.)
    @Test func aRenewalNamingTheAttributesItReadLeavesANewerWriteOfTheSameBytes() throws {
        // Given an entry read, then the same bytes written again with other attributes
        let folder = try TemporaryFolder()
        let clock = SteppingClock()
        let store = try Self.makeStore(folder, clock: clock)
        try store.setValue(Data("v".utf8), forKey: "k", options: .init(attributes: Data("read".utf8)))
        let read = try #require(store.info(forKey: "k"))
        try store.setValue(Data("v".utf8), forKey: "k", options: .init(attributes: Data("newer".utf8)))

        // When a renewal computed from the read lands
        let renewed = try store.renewMetadata(
            EntryMetadata(storedAt: clock.date),
            attributes: Data("extended".utf8),
            ifContentHash: read.contentHash,
            ifAttributes: read.attributes,
            forKey: "k"
        )

        // Then it is refused, and the newer write's attributes stay
        #expect(!renewed)
        #expect(store.info(forKey: "k")?.attributes == Data("newer".utf8))

        // And one computed from the current entry lands
        let current = try #require(store.info(forKey: "k"))
        #expect(
            try store.renewMetadata(
                EntryMetadata(storedAt: clock.date),
                attributes: Data("extended".utf8),
                ifContentHash: current.contentHash,
                ifAttributes: current.attributes,
                forKey: "k"
            )
        )
        #expect(store.info(forKey: "k")?.attributes == Data("extended".utf8))
    }

    @Test func aMoveOverlappedByARenewalOfTheSameKeyIsNotLost() throws {
        // Given an entry, and a renewal of it that lands while a moved file is committed
        let folder = try TemporaryFolder()
        let clock = SteppingClock()
        let store = try Self.makeStore(folder, clock: clock)
        try store.setValue(Data("v1".utf8), forKey: "k")
        let download = folder.url.appendingPathComponent("download")
        try Data("v2".utf8).write(to: download)
        let renewed = Locked(false)
        clock.run(atReading: 2) {
            let done = try? store.renewMetadata(EntryMetadata(storedAt: clock.date, eTag: "\"v1\""), forKey: "k")
            renewed.withLock { $0 = done == true }
        }

        // When the file is moved in
        try store.move(fileAt: download, forKey: "k")

        // Then the store holds it (the caller's file was taken in, not thrown away)
        #expect(clock.ran && renewed.withLock { $0 })
        #expect(store.value(forKey: "k") == Data("v2".utf8))
        #expect(!FileManager.default.fileExists(atPath: download.path))
    }

    @Test func aLaterPutStillWinsOverAnEarlierOneThatCommitsAfterIt() throws {
        // Given a put that has written its file, and a second put of the key that commits before it
        let folder = try TemporaryFolder()
        let clock = SteppingClock()
        let store = try Self.makeStore(folder, clock: clock)
        clock.run(atReading: 2) { try? store.setValue(Data("later".utf8), forKey: "k") }

        // When the first put commits
        try store.setValue(Data("earlier".utf8), forKey: "k")

        // Then the later put's data stays, and the earlier one's file is gone
        #expect(clock.ran)
        #expect(store.value(forKey: "k") == Data("later".utf8))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
            .filter { $0.hasPrefix(".strata-tmp-") }
        #expect(leftovers.isEmpty)
    }
}
