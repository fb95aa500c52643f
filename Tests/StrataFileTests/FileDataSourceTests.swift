import Foundation
import Strata
import StrataFile
import StrataTesting
import Testing

struct FileDataSourceTests {
    @Test func storesReadsAndRemovesData() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()

        try store.setValue(Data("hello".utf8), forKey: "greeting")
        try store.setValue(Data(), forKey: "empty")

        #expect(store.value(forKey: "greeting") == Data("hello".utf8))
        #expect(store.value(forKey: "empty") == Data())
        #expect(store.value(forKey: "missing") == nil)
        #expect(try store.removeValue(forKey: "greeting"))
        #expect(try !store.removeValue(forKey: "greeting"))
        #expect(store.value(forKey: "greeting") == nil)
        #expect(try folder.entryFiles().count == 1)
    }

    @Test func replacingAnEntryKeepsTheByteCountExact() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()

        try store.setValue(.pattern(5_000), forKey: "a")
        try store.setValue(.pattern(300), forKey: "b")
        try store.setValue(.pattern(1_200, seed: 9), forKey: "a")

        #expect(store.totalSize == 1_500)
        #expect(store.count == 2)
        #expect(store.value(forKey: "a") == .pattern(1_200, seed: 9))
    }

    @Test func removeAllRemovesEntriesAndLeavesForeignFiles() throws {
        // Given a store with entries and two files that are not Strata entries
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        for index in 0..<5 { try store.setValue(.pattern(10), forKey: "key-\(index)") }
        let foreign = folder.storeURL().appendingPathComponent("notes.txt")
        let lookalike = folder.storeURL().appendingPathComponent("not-a-hash.strata")
        try Data("mine".utf8).write(to: foreign)
        try Data("mine too".utf8).write(to: lookalike)

        // When everything is removed
        try store.removeAll()

        // Then the entries are gone and the foreign files stay
        #expect(store.count == 0)
        #expect(store.totalSize == 0)
        #expect(try folder.entryFiles() == ["not-a-hash.strata"])
        #expect(try Data(contentsOf: foreign) == Data("mine".utf8))
    }

    @Test func infoReportsSizeDatesExpiryAndValidators() throws {
        let clock = ManualClock()
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(clock: clock, timeToLive: .seconds(3_600))
        let written = clock.now()

        try store.setValue(
            .pattern(42),
            forKey: "k",
            options: .init(timeToLive: .seconds(60), eTag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        )
        clock.advance(by: .seconds(10))
        _ = store.value(forKey: "k")
        let info = try #require(store.info(forKey: "k"))

        #expect(info.key == "k")
        #expect(info.size == 42)
        #expect(info.created == written)
        #expect(info.lastAccess == written.addingTimeInterval(10))
        #expect(info.expiresAt == written.addingTimeInterval(60))
        #expect(info.eTag == "\"v1\"")
        #expect(info.lastModified == "Wed, 21 Oct 2015 07:28:00 GMT")
        try store.setValue(.pattern(42), forKey: "same bytes")
        #expect(store.info(forKey: "same bytes")?.contentHash == info.contentHash)
        #expect(store.info(forKey: "missing") == nil)
    }

    @Test func asecondStoreWithTheSameIdentifierIsRefusedUntilTheFirstIsReleased() throws {
        let folder = try TemporaryFolder()
        var first: FileDataSource? = try folder.makeStore("shared")
        try first?.setValue(Data("1".utf8), forKey: "k")

        #expect {
            _ = try folder.makeStore("shared")
        } throws: { ($0 as? StrataError)?.code == .alreadyInUse }
        let other = try folder.makeStore("other")
        #expect(other.count == 0)

        first = nil
        let second = try folder.makeStore("shared")
        #expect(second.value(forKey: "k") == Data("1".utf8))
    }

    /// `../\u{301}x`: a combining mark (or a joiner) after the `/` makes the two one `Character`, which a check by
    /// `Character` took for no `/` at all, and the store was made beside the folder it was given.
    @Test(arguments: ["", ".", "..", "a/b", "nul\u{0}", "../\u{301}x", "a/\u{200D}b"])
    func rejectsIdentifiersThatAreNotOneFolderName(_ identifier: String) throws {
        let folder = try TemporaryFolder()
        let parent = folder.url.appendingPathComponent("location")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: false)
        let besideBefore = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect {
            _ = try FileDataSource(configuration: .init(location: .url(parent), identifier: identifier))
        } throws: { ($0 as? StrataError)?.code == .invalidArgument }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == besideBefore)
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).isEmpty)
    }

    @Test func rejectsLimitsBelowOne() throws {
        let folder = try TemporaryFolder()
        let count = #expect(throws: StrataError.self) { _ = try folder.makeStore(countLimit: 0) }
        #expect(count?.message == "countLimit must be at least 1 (nil for no limit), got 0")
        let size = #expect(throws: StrataError.self) { _ = try folder.makeStore(maxSize: 0) }
        #expect(size?.message == "maxSize must be at least 1 (nil for no limit), got 0")
    }

    @Test func reopeningKeepsDataMetadataAndRecencyOrder() throws {
        // Given a store whose reads changed the order of its entries
        let clock = ManualClock()
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore(clock: clock)
        for key in ["a", "b", "c", "d"] {
            try store?.setValue(
                Data(key.utf8),
                forKey: key,
                options: .init(timeToLive: .seconds(600), eTag: "e-\(key)")
            )
            clock.advance(by: .seconds(1))
        }
        _ = store?.value(forKey: "b")
        _ = store?.value(forKey: "a")
        let order = store?.keysByRecency
        let info = store?.info(forKey: "a")

        // When the store is released and opened again
        store = nil
        let reopened = try folder.makeStore(clock: clock)

        // Then data, metadata and order survive
        #expect(order == ["a", "b", "d", "c"])
        #expect(reopened.keysByRecency == order)
        #expect(reopened.info(forKey: "a") == info)
        #expect(reopened.info(forKey: "c")?.eTag == "e-c")
        #expect(reopened.value(forKey: "d") == Data("d".utf8))
        #expect(reopened.totalSize == 4)
    }

    @Test func reopeningWithoutTheJournalKeepsTheWriteOrder() throws {
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore()
        for key in ["x", "y", "z"] { try store?.setValue(Data(key.utf8), forKey: key) }
        store = nil
        try FileManager.default.removeItem(at: folder.storeURL().appendingPathComponent(".strata-index"))

        let reopened = try folder.makeStore()

        #expect(reopened.keysByRecency == ["z", "y", "x"])
    }

    @Test func leftoverTemporaryFilesAreRemovedWhenTheStoreOpens() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.storeURL(), withIntermediateDirectories: true)
        let leftover = folder.storeURL().appendingPathComponent(".strata-tmp-17")
        try Data("half a write".utf8).write(to: leftover)

        _ = try folder.makeStore()

        #expect(!FileManager.default.fileExists(atPath: leftover.path))
    }

    @Test func moveTakesOverAFileWithoutCopying() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let download = folder.url.appendingPathComponent("download.tmp")
        try Data.pattern(70_000).write(to: download)

        try store.move(fileAt: download, forKey: "https://example.com/a.png", options: .init(eTag: "\"abc\""))

        #expect(!FileManager.default.fileExists(atPath: download.path))
        #expect(store.value(forKey: "https://example.com/a.png") == .pattern(70_000))
        #expect(store.info(forKey: "https://example.com/a.png")?.eTag == "\"abc\"")
        #expect(store.totalSize == 70_000)
    }

    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/shm")))
    func moveCopiesAcrossVolumes() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let download = URL(fileURLWithPath: "/dev/shm/strata-\(UUID().uuidString)")
        try Data.pattern(3_000).write(to: download)
        defer { try? FileManager.default.removeItem(at: download) }

        try store.move(fileAt: download, forKey: "k")

        #expect(store.value(forKey: "k") == .pattern(3_000))
        #expect(!FileManager.default.fileExists(atPath: download.path))
    }

    @Test func movingAMissingFileIsAnIOError() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        #expect {
            try store.move(fileAt: folder.url.appendingPathComponent("nothing"), forKey: "k")
        } throws: { ($0 as? StrataError)?.code == .io }
    }
}
