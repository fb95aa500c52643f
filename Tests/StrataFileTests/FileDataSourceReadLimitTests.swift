import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataFile

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `maximumReadSize`: a read never loads more than it into memory, whatever the folder holds — a sparse file of a
/// terabyte planted with a trailer that passes is neither read nor removed — and the copy out of the store, which
/// is not bounded by it, goes through a small buffer.
struct FileDataSourceReadLimitTests {
    /// Collects the store's reports, whatever their code.
    private final class Reports: Sendable {
        private let reports = Locked<[StrataError]>([])
        var all: [StrataError] { reports.withLock { $0 } }
        func record(_ report: StrataError) { reports.withLock { $0.append(report) } }
    }

    private func makeStore(
        _ folder: TemporaryFolder,
        maximumReadSize: Int? = nil,
        reports: Reports
    ) throws -> FileDataSource {
        var configuration = FileDataSource.Configuration(
            location: .url(folder.url),
            identifier: "store",
            diagnostics: reports.record
        )
        if let maximumReadSize { configuration.maximumReadSize = maximumReadSize }
        return try FileDataSource(configuration: configuration)
    }

    /// Writes at the entry name of `key` a sparse file of `size` zero bytes followed by a sealed trailer for it
    /// (whose content hash does not match the zeros: a read that loaded them would remove the file as damaged).
    private func plantSparseEntry(_ key: String, size: Int, in folder: TemporaryFolder) throws -> URL {
        let url = folder.storeURL().appendingPathComponent(EntryName(key: key).fileName)
        let trailer = EntryTrailer(
            key: key,
            eTag: nil,
            lastModified: nil,
            payloadSize: size,
            contentHash: 1,
            writeSequence: 1,
            created: Date(timeIntervalSince1970: 1_000),
            expiresAt: nil
        )
        let encoded = try trailer.encoded()
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(descriptor >= 0)
        defer { _ = close(descriptor) }
        let written = encoded.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(size)) }
        try #require(written == encoded.count)
        return url
    }

    private func size(of url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    }

    @Test func aPlantedSparseEntryOfATerabyteIsNeitherReadNorRemoved() throws {
        // Given a store folder holding, at a key's name, a sparse file of 1 TiB with a sealed trailer for the key
        let folder = try TemporaryFolder()
        let reports = Reports()
        _ = try makeStore(folder, reports: reports)
        let planted = try plantSparseEntry("big", size: 1 << 40, in: folder)

        // When the store opens on it (with the default limit) and the key is read
        let store = try makeStore(folder, reports: reports)
        let value = store.value(forKey: "big")
        let entry = store.entry(forKey: "big")

        // Then nothing is loaded: the reads miss, the limit is reported, and the entry and its file are kept
        #expect(value == nil)
        #expect(entry == nil)
        #expect(reports.all.map(\.code) == [.tooLarge, .tooLarge])
        #expect(reports.all.first?.message.contains("maximumReadSize of 1073741824") == true)
        #expect(store.info(forKey: "big")?.size == 1 << 40)
        #expect(try size(of: planted) > 1 << 40)
        #expect(store.corruptEntriesRemoved == 0)

        // And a put replaces it as any entry
        try store.setValue(Data("small".utf8), forKey: "big")
        #expect(store.value(forKey: "big") == Data("small".utf8))
    }

    @Test func anEntryAboveTheLimitIsKeptAndCopiedOutThroughASmallBuffer() throws {
        // Given a store that reads at most 64 KiB, and a file of 1 MiB moved in
        let folder = try TemporaryFolder()
        let reports = Reports()
        let store = try makeStore(folder, maximumReadSize: 64 << 10, reports: reports)
        let bytes = Data.pattern(1 << 20)
        let download = folder.url.appendingPathComponent("download")
        try bytes.write(to: download)
        try store.move(fileAt: download, forKey: "big")

        // When it is read, then copied out
        let value = store.value(forKey: "big")
        let copy = folder.url.appendingPathComponent("copy")
        try Data("older, longer contents of the copy's file".utf8).write(to: copy)
        let descriptor = open(copy.path, O_RDWR)
        try #require(descriptor >= 0)
        let copied = try store.copyValue(forKey: "big", to: descriptor)
        _ = close(descriptor)

        // Then the read misses and reports, the entry stays, and the copy holds exactly its bytes
        #expect(value == nil)
        #expect(reports.all.map(\.code) == [.tooLarge])
        #expect(copied?.size == bytes.count)
        #expect(copied?.contentHash == store.info(forKey: "big")?.contentHash)
        #expect(try Data(contentsOf: copy) == bytes)
    }

    @Test func aReadOfAnEntryAboveTheLimitIsNotAUse() throws {
        // Given a store that reads at most 64 KiB, with a file of 1 MiB moved in and a small entry put after it
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        let reports = Reports()
        var configuration = FileDataSource.Configuration(
            location: .url(folder.url),
            identifier: "store",
            diagnostics: reports.record
        )
        configuration.clock = clock
        configuration.maximumReadSize = 64 << 10
        let store = try FileDataSource(configuration: configuration)
        let download = folder.url.appendingPathComponent("download")
        try Data.pattern(1 << 20).write(to: download)
        try store.move(fileAt: download, forKey: "big")
        let moved = try #require(store.info(forKey: "big")?.lastAccess)
        clock.advance(by: .seconds(60))
        try store.setValue(Data("small".utf8), forKey: "small")

        // When the large entry is read, later
        clock.advance(by: .seconds(60))
        let value = store.value(forKey: "big")

        // Then nothing was read, and its last use is still the move: it keeps its place behind the small entry
        #expect(value == nil)
        #expect(reports.all.map(\.code) == [.tooLarge])
        #expect(store.info(forKey: "big")?.lastAccess == moved)
    }

    @Test func aPutAboveTheLimitIsRefusedAndLeavesTheOlderEntry() throws {
        // Given a store that reads at most 16 bytes, with an entry
        let folder = try TemporaryFolder()
        let reports = Reports()
        let store = try makeStore(folder, maximumReadSize: 16, reports: reports)
        try store.setValue(Data("kept".utf8), forKey: "k")

        // When a larger value is put
        // Then it is refused (what a put stores, a read gives back), and the older entry stays
        #expect(throws: StrataError.self) { try store.setValue(Data(count: 17), forKey: "k") }
        #expect(store.value(forKey: "k") == Data("kept".utf8))
        #expect(throws: StrataError.self) {
            _ = try FileDataSource(
                configuration: {
                    var configuration = FileDataSource.Configuration(location: .url(folder.url), identifier: "other")
                    configuration.maximumReadSize = -1
                    return configuration
                }()
            )
        }
    }

    @Test func aCopyOfADamagedEntryMissesAndRemovesIt() throws {
        // Given an entry whose data was changed behind the store's back (same length)
        let folder = try TemporaryFolder()
        let reports = Reports()
        let store = try makeStore(folder, reports: reports)
        try store.setValue(Data.pattern(4096), forKey: "k")
        let file = try #require(try folder.entryFiles().first)
        let handle = try FileHandle(forWritingTo: folder.storeURL().appendingPathComponent(file))
        try handle.write(contentsOf: Data([0xFF, 0xFF]))
        try handle.close()

        // When it is copied out
        let copy = folder.url.appendingPathComponent("copy")
        _ = FileManager.default.createFile(atPath: copy.path, contents: nil)
        let descriptor = open(copy.path, O_RDWR)
        try #require(descriptor >= 0)
        let copied = try store.copyValue(forKey: "k", to: descriptor)
        _ = close(descriptor)

        // Then it misses, and the damaged entry is removed and reported as a read's would be
        #expect(copied == nil)
        #expect(store.info(forKey: "k") == nil)
        #expect(reports.all.map(\.code) == [.corrupt])
        #expect(reports.all.first?.message.contains("checksum mismatch") == true)
    }

    @Test func aCopyIntoAFileThatCannotBeWrittenThrowsAndKeepsTheEntry() throws {
        // Given an entry, and a copy's file opened for reading only
        let folder = try TemporaryFolder()
        let reports = Reports()
        let store = try makeStore(folder, reports: reports)
        try store.setValue(Data.pattern(4096), forKey: "k")
        let copy = folder.url.appendingPathComponent("copy")
        _ = FileManager.default.createFile(atPath: copy.path, contents: nil)
        let descriptor = open(copy.path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { _ = close(descriptor) }

        // When the entry is copied into it
        let error = #expect(throws: StrataError.self) { try store.copyValue(forKey: "k", to: descriptor) }

        // Then the copy's failure is an I/O error, and the entry is kept as it was, with nothing reported
        #expect(error?.code == .io)
        #expect(store.value(forKey: "k") == Data.pattern(4096))
        #expect(reports.all.isEmpty)
    }

    /// Before, a listing (or a read of several keys) read every entry, each within the limit and all of them without
    /// one: a folder of many entries just under it (planted sparse files, or a cache's own large blobs) loaded them
    /// all into memory.
    @Test func aReadOfSeveralEntriesLoadsAtMostTheLimitInAll() async throws {
        // Given a store that reads at most 10,000 bytes, holding three entries of 4,000
        let folder = try TemporaryFolder()
        let reports = Reports()
        let store = try makeStore(folder, maximumReadSize: 10_000, reports: reports)
        for key in ["a", "b", "c"] { try store.setValue(Data.pattern(4_000), forKey: key) }

        // When they are read all at once, by listing or by keys, and then two at a time
        let listed = await #expect(throws: StrataError.self) { try await store.getAll(AllObjectsQuery()) }
        let named = await #expect(throws: StrataError.self) {
            try await store.getAllEntries(IdsQuery(["a", "b", "c"]))
        }
        let two = try await store.getAll(IdsQuery(["a", "c"]))
        let page = try await store.getAll(PaginationOffsetLimitQuery(offset: 1, limit: 2))

        // Then the reads of all three fail before the third is loaded, naming it; two are read, and each alone
        #expect(listed?.code == .tooLarge)
        #expect(listed?.message.contains("Reading \"c\" (4000 bytes)") == true)
        #expect(listed?.message.contains("maximumReadSize of 10000 bytes in all") == true)
        #expect(named?.code == .tooLarge)
        #expect(two == [Data.pattern(4_000), Data.pattern(4_000)])
        #expect(page.count == 2)
        #expect(try await store.get(KeyQuery("c")) == Data.pattern(4_000))
        #expect(store.storedSize(forKey: "c") == 4_000)
        #expect(store.storedSize(forKey: "d") == nil)
        #expect(reports.all.isEmpty)
    }

    @Test func anEntryAboveTheLimitAloneIsNotCountedByAListing() async throws {
        // Given a store that reads at most 64 KiB, holding a file of 1 MiB moved in and two small entries
        let folder = try TemporaryFolder()
        let reports = Reports()
        let store = try makeStore(folder, maximumReadSize: 64 << 10, reports: reports)
        let download = folder.url.appendingPathComponent("download")
        try Data.pattern(1 << 20).write(to: download)
        try store.move(fileAt: download, forKey: "big")
        for key in ["a", "z"] { try store.setValue(Data(key.utf8), forKey: key) }

        // When every entry is listed
        let values = try await store.getAll(AllObjectsQuery())

        // Then the large one is skipped as a keyed read misses it (reported), and the listing goes on past it
        #expect(values == [Data("a".utf8), Data("z".utf8)])
        #expect(reports.all.map(\.code) == [.tooLarge])
    }
}
