import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataJSONFile

/// A JSON store's ``JSONFileDataSource/Configuration/maxSize``: the bytes of its entry files are counted, kept in the
/// index across restarts, and bounded.
struct JSONFileSizeLimitTests {
    private let recorder = EvictionRecorder()

    /// Opens a store of `fixture` with a size limit and the recorder as its eviction observer.
    private func open(_ fixture: Fixture, maxSize: Int?) throws -> JSONFileDataSource<Item> {
        var configuration = fixture.configuration()
        configuration.maxSize = maxSize
        configuration.evictionObserver = recorder
        return try JSONFileDataSource(configuration: configuration)
    }

    /// The bytes of every entry file under the store's folder, as the file system gives them.
    private func entryBytes(_ fixture: Fixture) throws -> Int {
        try fixture.files().filter { $0.hasPrefix("entries/") && $0.hasSuffix(".json") }.reduce(0) { total, file in
            let attributes = try FileManager.default.attributesOfItem(
                atPath: fixture.folder.appendingPathComponent(file).path
            )
            return total + ((attributes[.size] as? Int) ?? 0)
        }
    }

    /// The size of the entry file of one item named with one letter (every such file has the same size).
    private func oneEntrySize(in folder: URL) throws -> Int {
        let fixture = Fixture(folder: folder.appendingPathComponent("measure"))
        try write(["x"], in: fixture)
        return try entryBytes(fixture)
    }

    /// Writes an item under each name, in turn, with a store without limits that is closed before returning.
    private func write(_ names: [String], in fixture: Fixture) throws {
        let store = try fixture.open()
        for name in names { try store.setValue(Item(name: name, number: 0), forKey: name) }
    }

    @Test func theLeastRecentlyUsedGoOverTheSizeLimitAndTheBytesLeftAreReported() async throws {
        try await withTemporaryFolder { folder in
            // Given a store that holds three entries' bytes, and a fourth's half: a, b, c written, a read since
            let size = try oneEntrySize(in: folder)
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            let store = try open(fixture, maxSize: 3 * size + size / 2)
            for name in ["a", "b", "c"] { try store.setValue(Item(name: name, number: 0), forKey: name) }
            _ = try store.value(forKey: "a")
            #expect(recorder.evictions.isEmpty)

            // When a fourth is written
            try store.setValue(Item(name: "d", number: 0), forKey: "d")

            // Then the least recently used went, for the size limit, and the files left are what the report says
            #expect(recorder.summary == ["b: sizeLimit"])
            #expect(recorder.evictions.first?.usage == StoreUsage(count: 3, bytes: 3 * size))
            #expect(store.totalSize == 3 * size)
            #expect(Set(store.keysByRecency) == ["a", "c", "d"])
            #expect(try entryBytes(fixture) == 3 * size)
        }
    }

    @Test func aValueWhoseFileAloneIsOverTheLimitIsRefusedAndTheEntryBeforeItKept() async throws {
        try await withTemporaryFolder { folder in
            // Given a store of a small entry under "a", whose limit holds two small entries
            let size = try oneEntrySize(in: folder)
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            let store = try open(fixture, maxSize: 2 * size)
            try store.setValue(Item(name: "a", number: 0), forKey: "a")
            try store.setValue(Item(name: "b", number: 0), forKey: "b")

            // When a value larger than the whole limit is written under "a"
            let large = Item(name: String(repeating: "a", count: 2 * size), number: 1)
            let error = #expect(throws: StrataError.self) { try store.setValue(large, forKey: "a") }

            // Then it is refused, nothing written and nothing evicted
            #expect(error?.code == .tooLarge)
            #expect(try store.value(forKey: "a") == Item(name: "a", number: 0))
            #expect(try store.value(forKey: "b") == Item(name: "b", number: 0))
            #expect(try entryBytes(fixture) == 2 * size)
            #expect(recorder.evictions.isEmpty)
        }
    }

    @Test func theSizesAreKeptAcrossARestartAndAJournalWithoutThemIsMeasuredOnce() async throws {
        try await withTemporaryFolder { folder in
            // Given a store of four entries whose journal was written before sizes were kept
            let size = try oneEntrySize(in: folder)
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            try write(["a", "b", "c", "d"], in: fixture)
            let journal = fixture.folder.appendingPathComponent("index.journal")
            var replay = try IndexJournal.replay(Data(contentsOf: journal))
            for key in replay.records.keys { replay.records[key]?.size = nil }
            try IndexJournal.snapshot(of: replay.records).write(to: journal)

            // When it is opened with a limit of two entries' bytes, then again after one more write
            do {
                let store = try open(fixture, maxSize: 2 * size)
                #expect(store.count == 2)  // brought within the limit as it opened
                try store.setValue(Item(name: "e", number: 0), forKey: "e")
            }
            let measured = try IndexJournal.replay(Data(contentsOf: journal))
            let reopened = try open(fixture, maxSize: 2 * size)
            try reopened.setValue(Item(name: "f", number: 0), forKey: "f")

            // Then the first open measured the files and wrote their sizes; the store kept two entries' bytes
            #expect(measured.records.count == 2)
            #expect(measured.records.values.allSatisfy { $0.size == size })
            #expect(recorder.summary == ["a: sizeLimit", "b: sizeLimit", "c: sizeLimit", "d: sizeLimit"])
            #expect(Set(reopened.keysByRecency) == ["e", "f"])
            #expect(try entryBytes(fixture) == 2 * size)
        }
    }

    @Test func anIndexRebuiltFromTheEntryFilesCountsTheirSizes() async throws {
        try await withTemporaryFolder { folder in
            // Given a store of three entries whose index was deleted
            let size = try oneEntrySize(in: folder)
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            try write(["a", "b", "c"], in: fixture)
            try FileManager.default.removeItem(at: fixture.folder.appendingPathComponent("index.journal"))

            // When it is opened with a limit of two entries' bytes and written to
            let store = try open(fixture, maxSize: 2 * size)
            try store.setValue(Item(name: "d", number: 0), forKey: "d")

            // Then the index rebuilt from the files knew their sizes: two went, by their order of writing
            #expect(recorder.summary == ["a: sizeLimit", "b: sizeLimit"])
            #expect(Set(store.keysByRecency) == ["c", "d"])
            #expect(try entryBytes(fixture) == 2 * size)
        }
    }

    @Test(arguments: [true, false])
    func aFolderOverTheLimitsIsBroughtWithinThemAsItOpens(bySize: Bool) async throws {
        try await withTemporaryFolder { folder in
            // Given a store of four entries written without limits, "a" the most recently used
            let size = try oneEntrySize(in: folder)
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            try write(["b", "c", "d", "a"], in: fixture)

            // When it is opened with room for two
            var configuration = fixture.configuration(countLimit: bySize ? nil : 2)
            configuration.maxSize = bySize ? 2 * size + size / 2 : nil
            configuration.evictionObserver = recorder
            let store = try JSONFileDataSource(configuration: configuration)

            // Then the least recently used went before it was returned, each reported
            let reason = bySize ? "sizeLimit" : "countLimit"
            #expect(recorder.summary == ["b: \(reason)", "c: \(reason)"])
            #expect(Set(store.keysByRecency) == ["a", "d"])
            #expect(try entryBytes(fixture) == 2 * size)
        }
    }

    /// An entry that cannot be removed (an immutable file: not even root may unlink it) stays, marked as just used,
    /// and the next least recently used goes in its place: the store opens within its limits and says so to
    /// `diagnostics` (`io`). A write then evicts past it without trying it again; once the file can go, it goes in
    /// its turn.
    @Test(.enabled(if: immutableFilesWork))
    func anEvictionThatFailsAsTheStoreOpensIsReported() async throws {
        try await withTemporaryFolder { folder in
            // Given three entries, the least recently used of them a file that cannot be removed
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            try write(["b"], in: fixture)
            let oldest = fixture.folder.appendingPathComponent(
                try #require(try fixture.files().first { $0.hasPrefix("entries/") && $0.hasSuffix(".json") })
            )
            try write(["c", "a"], in: fixture)
            #expect(setImmutable(oldest, true))
            defer { setImmutable(oldest, false) }

            // When it is opened with room for two
            let reports = Locked<[StrataError]>([])
            var configuration = fixture.configuration(countLimit: 2)
            configuration.diagnostics = { report in reports.withLock { $0.append(report) } }
            let store = try JSONFileDataSource(configuration: configuration)

            // Then it opened within its limits, the next entry evicted in the stuck one's place, and reported the
            // failure; a write stands and evicts the least recently used, the stuck one now behind it
            let report = try #require(reports.withLock { $0 }.first)
            #expect(report.code == .io)
            #expect(report.message.contains("JSONFileDataSource could not remove an entry it evicts"), "\(report)")
            #expect(Set(store.keysByRecency) == ["a", "b"])
            try store.setValue(Item(name: "d", number: 4), forKey: "d")
            #expect(try store.value(forKey: "d") == Item(name: "d", number: 4))
            #expect(Set(store.keysByRecency) == ["b", "d"])
            #expect(reports.withLock { $0.count } == 1)
            setImmutable(oldest, false)
            try store.setValue(Item(name: "e", number: 0), forKey: "e")
            #expect(store.keysByRecency == ["e", "d"])
            #expect(reports.withLock { $0.count } == 1)
        }
    }

    /// An expired entry whose file cannot be removed (an immutable file) keeps no other expired entry, and no rest of
    /// the sweep, from going: the failure is thrown at the end. (The sweep stopped at it, and as the first key it was
    /// hit first on every call: the expired entries after it stayed for good.)
    @Test(.enabled(if: immutableFilesWork))
    func removeExpiredGoesPastAnEntryItCannotRemove() async throws {
        try await withTemporaryFolder { folder in
            // Given three entries that expire, the first of them a file that cannot be removed
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            let store = try fixture.open(timeToLive: .seconds(60))
            try store.setValue(Item(name: "a", number: 0), forKey: "a")
            let stuck = fixture.folder.appendingPathComponent(
                try #require(try fixture.files().first { $0.hasPrefix("entries/") && $0.hasSuffix(".json") })
            )
            try store.setValue(Item(name: "b", number: 0), forKey: "b")
            try store.setValue(Item(name: "c", number: 0), forKey: "c")
            #expect(setImmutable(stuck, true))
            defer { setImmutable(stuck, false) }

            // When they have expired and the store removes what expired
            fixture.clock.advance(by: .seconds(120))
            #expect(throws: StrataError.self) { try store.removeExpired() }

            // Then only the stuck one is left
            #expect(store.count == 1)
        }
    }

    @Test func anEntryFileTakenInByCleanupCountsAgainstTheLimit() async throws {
        try await withTemporaryFolder { folder in
            // Given a store full at two entries' bytes, and the file of a third entry (another store's) copied in
            let size = try oneEntrySize(in: folder)
            let other = Fixture(folder: folder.appendingPathComponent("other"))
            try write(["z"], in: other)
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            let store = try open(fixture, maxSize: 2 * size)
            try store.setValue(Item(name: "a", number: 0), forKey: "a")
            try store.setValue(Item(name: "b", number: 0), forKey: "b")
            let file = try #require(try other.files().first { $0.hasPrefix("entries/") && $0.hasSuffix(".json") })
            let destination = fixture.folder.appendingPathComponent(file)
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try FileManager.default.copyItem(at: other.folder.appendingPathComponent(file), to: destination)

            // When cleanup takes it in
            try store.removeExpired()

            // Then the store holds two entries' bytes again: the least recently used went
            #expect(recorder.summary == ["a: sizeLimit"])
            #expect(Set(store.keysByRecency) == ["b", "z"])
            #expect(store.totalSize == 2 * size)
        }
    }

    @Test(arguments: [-1, 0])
    func aSizeLimitBelowOneIsRefused(_ maxSize: Int) async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let error = #expect(throws: StrataError.self) { try open(fixture, maxSize: maxSize) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message == "maxSize must be at least 1 (nil for no limit), got \(maxSize)")
        }
    }

    @Test(arguments: [-1, 0])
    func aCountLimitBelowOneIsRefused(_ countLimit: Int) async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let error = #expect(throws: StrataError.self) { try fixture.open(countLimit: countLimit) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message == "countLimit must be at least 1 (nil for no limit), got \(countLimit)")
        }
    }

    @Test func aReadOfSeveralEntriesLoadsAtMostTheReadLimitInAll() async throws {
        try await withTemporaryFolder { folder in
            // Given a store whose reads of several entries load at most two entry files' bytes and a half, holding
            // three
            let size = try oneEntrySize(in: folder)
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            var configuration = fixture.configuration()
            configuration.maximumReadSize = 2 * size + size / 2
            let store = try JSONFileDataSource(configuration: configuration)
            for name in ["a", "b", "c"] { try store.setValue(Item(name: name, number: 0), forKey: name) }
            let decodedBefore = fixture.decodes.count

            // When they are read all at once, by listing or by keys, and two at a time
            let listed = await #expect(throws: StrataError.self) { try await store.getAll(AllObjectsQuery()) }
            let named = await #expect(throws: StrataError.self) { try await store.getAll(IdsQuery(["c", "b", "a"])) }
            let two = try await store.getAll(IdsQuery(["a", "c"]))

            // Then the reads of all three fail before the third is decoded, naming it; two are read
            #expect(listed?.code == .tooLarge)
            #expect(listed?.message.contains("Reading \"c\"") == true)
            #expect(named?.code == .tooLarge)
            #expect(named?.message.contains("Reading \"a\"") == true)
            #expect(two.map(\.name) == ["a", "c"])
            #expect(fixture.decodes.count - decodedBefore == 2 + 2 + 2)
            #expect(store.storedSize(forKey: "a") == size)
            #expect(try await store.get(KeyQuery("c")).name == "c")
        }
    }

    @Test func aNegativeReadLimitIsRefused() async throws {
        try await withTemporaryFolder { folder in
            var configuration = Fixture(folder: folder).configuration()
            configuration.maximumReadSize = -1
            let error = #expect(throws: StrataError.self) { try JSONFileDataSource(configuration: configuration) }
            #expect(error?.code == .invalidArgument)
        }
    }
}
