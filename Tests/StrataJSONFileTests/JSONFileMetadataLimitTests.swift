import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataJSONFile

/// A JSON store's ``JSONFileDataSource/Configuration/maximumMetadataSize``: its index keeps every key in memory, so
/// what it holds of keys and metadata is bounded — a folder whose entries take more is not opened, whether its index
/// is replayed or rebuilt from the entry files, writes past the limit evict the least recently used, and an entry whose
/// key alone takes more is refused.
struct JSONFileMetadataLimitTests {
    private let recorder = EvictionRecorder()

    /// A key of `length` bytes, told apart by `index`.
    private func longKey(_ index: Int, length: Int) -> String {
        "k\(index)-" + String(repeating: "x", count: length - "k\(index)-".utf8.count)
    }

    private func open(_ fixture: Fixture, maximumMetadataSize: Int? = nil) throws -> JSONFileDataSource<Item> {
        var configuration = fixture.configuration()
        if let maximumMetadataSize { configuration.maximumMetadataSize = maximumMetadataSize }
        configuration.evictionObserver = recorder
        return try JSONFileDataSource(configuration: configuration)
    }

    /// Every file under the store's folder with its bytes.
    private func contents(_ fixture: Fixture) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for file in try fixture.files() {
            contents[file] = try Data(contentsOf: fixture.folder.appendingPathComponent(file))
        }
        return contents
    }

    /// Writes twelve entries under keys of 10,000 bytes with a store of the default limit, closed before returning.
    private func writeTwelveLongKeys(in fixture: Fixture) throws -> [String] {
        let keys = (0..<12).map { longKey($0, length: 10_000) }
        let store = try open(fixture)
        for key in keys { try store.setValue(Item(name: "v", number: 1), forKey: key) }
        return keys
    }

    @Test(arguments: [false, true])
    func aFolderOfEntriesOverTheLimitIsNotOpenedNorChanged(rebuildingTheIndex: Bool) async throws {
        try await withTemporaryFolder { folder in
            // Given a store folder of twelve entries under keys of 10,000 bytes (its index removed: rebuilt from them)
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            let keys = try writeTwelveLongKeys(in: fixture)
            if rebuildingTheIndex {
                try FileManager.default.removeItem(at: fixture.folder.appendingPathComponent("index.journal"))
            }
            let before = try contents(fixture)

            // When a store with a limit of 50,000 bytes of keys and metadata opens on it
            let refusal = #expect(throws: StrataError.self) { try open(fixture, maximumMetadataSize: 50_000) }

            // Then it refuses with a typed error that names the limit, and no file changes
            #expect(refusal?.code == .tooLarge)
            #expect(refusal?.message.contains("maximumMetadataSize of 50000") == true)
            #expect(try contents(fixture) == before)
            #expect(recorder.evictions.isEmpty)

            // And a store with the default limit opens on the same folder and finds every entry
            let store = try open(fixture)
            #expect(store.count == 12)
            #expect(try store.value(forKey: keys[7]) == Item(name: "v", number: 1))
        }
    }

    /// A store in `folder` under `limit`, holding the first three of four keys of 1,000 bytes (1,064 bytes each,
    /// counted), written in order.
    private func storeOfThreeLongKeys(
        in folder: URL,
        limit: Int
    ) throws -> (fixture: Fixture, store: JSONFileDataSource<Item>, keys: [String]) {
        let fixture = Fixture(folder: folder.appendingPathComponent("store"))
        let keys = (0..<4).map { longKey($0, length: 1_000) }
        let store = try open(fixture, maximumMetadataSize: limit)
        for key in keys.prefix(3) { try store.setValue(Item(name: "v", number: 1), forKey: key) }
        return (fixture, store, keys)
    }

    @Test func writesPastTheLimitEvictTheLeastRecentlyUsed() async throws {
        try await withTemporaryFolder { folder in
            // Given a store whose limit holds three entries under keys of 1,000 bytes (1,064 bytes each, counted)
            let (_, store, keys) = try storeOfThreeLongKeys(in: folder, limit: 3_300)
            // (the first is read, so the second is the least recently used)
            _ = try store.value(forKey: keys[0])

            // When a fourth is written
            try store.setValue(Item(name: "v", number: 1), forKey: keys[3])

            // Then the least recently used goes, reported as over a size limit
            #expect(recorder.summary == ["\(keys[1]): sizeLimit"])
            #expect(store.count == 3)
            #expect(try store.value(forKey: keys[1]) == nil)
            #expect(try store.value(forKey: keys[0]) == Item(name: "v", number: 1))
        }
    }

    @Test func aRenewalThatGrowsTheTagsPastTheLimitEvictsTheLeastRecentlyUsed() async throws {
        try await withTemporaryFolder { folder in
            // Given a store whose limit holds three entries under keys of 1,000 bytes, with 200 bytes to spare
            let (fixture, store, keys) = try storeOfThreeLongKeys(in: folder, limit: 3_392)

            // When the newest is renewed with 400 bytes of tags
            let tags: Set<String> = ["t-" + String(repeating: "a", count: 398)]
            #expect(try store.renewMetadata(EntryMetadata(tags: tags), forKey: keys[2]))

            // Then the least recently used goes, so that the store opens with the same limit again
            #expect(recorder.summary == ["\(keys[0]): sizeLimit"])
            #expect(store.count == 2)
            _ = consume store
            #expect(try open(fixture, maximumMetadataSize: 3_392).count == 2)
        }
    }

    @Test func anEntryWhoseKeyAloneExceedsTheLimitIsRefused() async throws {
        try await withTemporaryFolder { folder in
            // Given a store whose limit is 500 bytes of keys and metadata, holding one entry
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            let store = try open(fixture, maximumMetadataSize: 500)
            try store.setValue(Item(name: "small", number: 1), forKey: "small")
            let before = try contents(fixture).keys.filter { $0.hasPrefix("entries/") }

            // When an entry under a key of 1,000 bytes is written
            let refusal = #expect(throws: StrataError.self) {
                try store.setValue(Item(name: "v", number: 1), forKey: longKey(0, length: 1_000))
            }

            // Then it is refused as too large, no entry file is written, and the other entry stays
            #expect(refusal?.code == .tooLarge)
            #expect(try contents(fixture).keys.filter { $0.hasPrefix("entries/") } == before)
            #expect(store.count == 1)
            #expect(try store.value(forKey: "small") == Item(name: "small", number: 1))
        }
    }

    @Test func entryFilesTheIndexLacksAreTakenInOnlyUpToTheLimit() async throws {
        try await withTemporaryFolder { folder in
            // Given a store whose limit holds one small entry and three under keys of 1,000 bytes, holding the small
            // one, and four entry files under such keys copied into its folder while it is open
            let source = Fixture(folder: folder.appendingPathComponent("source"))
            let keys = (0..<4).map { longKey($0, length: 1_000) }
            do {
                let writer = try open(source)
                for key in keys { try writer.setValue(Item(name: "v", number: 1), forKey: key) }
            }
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            let store = try open(fixture, maximumMetadataSize: 3_300)
            try store.setValue(Item(name: "small", number: 1), forKey: "small")
            let planted = try source.files().filter { $0.hasPrefix("entries/") }
            for file in planted {
                let target = fixture.folder.appendingPathComponent(file)
                try FileManager.default.createDirectory(
                    at: target.deletingLastPathComponent(),
                    withIntermediateDirectories: true
                )
                try FileManager.default.copyItem(at: source.folder.appendingPathComponent(file), to: target)
            }

            // When the store takes in the entry files its index lacks
            _ = try store.removeExpired()

            // Then it takes in three, leaves the fourth where it is, says so once, and evicts nothing
            #expect(planted.count == 4)
            #expect(store.count == 4)
            #expect(try store.value(forKey: "small") == Item(name: "small", number: 1))
            let reports = fixture.reports.all.filter { $0.code == .tooLarge }
            #expect(reports.count == 1)
            #expect(reports.first?.message.contains("left 1 entry files") == true)
            #expect(recorder.evictions.isEmpty)
            for file in planted {
                #expect(FileManager.default.fileExists(atPath: fixture.folder.appendingPathComponent(file).path))
            }
        }
    }

    @Test func aLimitBelowOneIsRefused() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder.appendingPathComponent("store"))
            let refusal = #expect(throws: StrataError.self) { try open(fixture, maximumMetadataSize: 0) }
            #expect(refusal?.code == .invalidArgument)
        }
    }
}
