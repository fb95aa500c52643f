import Foundation
import Strata
import Testing

@testable import StrataJSONFile

/// One bad path never makes the store unusable: a folder where an entry file belongs, a file where a shard
/// folder belongs, a folder named `index.journal`. Each is reported and set aside by rename (never deleted);
/// open, reads and writes of other keys, `cleanup()` and `removeAll()` work.
struct JSONFileDataSourceDamagedPathTests {
    /// The ManualClock's start in the `yyyyMMdd-HHmmss` of moved-aside files.
    private let stamp = "20231114-221320"

    /// Opens the store, checks that it works around the damage, and returns it.
    private func expectUsable(_ fixture: Fixture, damagedKey: String?) throws {
        let store = try fixture.open()
        try store.setValue(Item(name: "other", number: 7), forKey: "other")
        #expect(try store.value(forKey: "other") == Item(name: "other", number: 7))
        #expect(try store.value(forKey: "kept") == Item(name: "kept", number: 1))
        if let damagedKey {
            #expect(try store.value(forKey: damagedKey) == nil)
            try store.setValue(Item(name: damagedKey, number: 9), forKey: damagedKey)
            #expect(try store.value(forKey: damagedKey) == Item(name: damagedKey, number: 9))
        }
        try store.removeExpired()
        #expect(try store.value(forKey: "kept") == Item(name: "kept", number: 1))
        try store.removeAll()
        #expect(store.count == 0)
        #expect(!fixture.reports.all.isEmpty)
        #expect(fixture.reports.all.allSatisfy { $0.code == .corrupt })
    }

    /// A store holding `kept` and `victim`.
    private func makeStore(_ fixture: Fixture) throws {
        let store = try fixture.open()
        try store.setValue(Item(name: "kept", number: 1), forKey: "kept")
        try store.setValue(Item(name: "victim", number: 2), forKey: "victim")
    }

    @Test func aFolderWhereAnEntryFileBelongsIsSetAside() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            try makeStore(fixture)
            let (shard, file) = entryLocation(of: "victim")
            let entry = folder.appendingPathComponent("entries/\(shard)/\(file)")
            try FileManager.default.removeItem(at: entry)
            try FileManager.default.createDirectory(at: entry, withIntermediateDirectories: false)
            try Data("user data".utf8).write(to: entry.appendingPathComponent("inside.txt"))

            try expectUsable(fixture, damagedKey: "victim")

            let aside = folder.appendingPathComponent("entries/\(shard)/\(file).corrupt-\(stamp)")
            #expect(try Data(contentsOf: aside.appendingPathComponent("inside.txt")) == Data("user data".utf8))
        }
    }

    @Test func aFileWhereAShardFolderBelongsIsSetAside() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            try makeStore(fixture)
            let (shard, _) = entryLocation(of: "victim")
            #expect(entryLocation(of: "kept").shard != shard)
            let shardURL = folder.appendingPathComponent("entries/\(shard)")
            try FileManager.default.removeItem(at: shardURL)
            try Data("a file".utf8).write(to: shardURL)

            try expectUsable(fixture, damagedKey: "victim")

            let aside = folder.appendingPathComponent("entries/\(shard).corrupt-\(stamp)")
            #expect(try Data(contentsOf: aside) == Data("a file".utf8))
        }
    }

    @Test func aFolderNamedIndexJournalIsSetAsideAndTheIndexRebuilt() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            try makeStore(fixture)
            let journal = folder.appendingPathComponent("index.journal")
            try FileManager.default.removeItem(at: journal)
            try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: false)
            try Data("user data".utf8).write(to: journal.appendingPathComponent("inside.txt"))

            try expectUsable(fixture, damagedKey: nil)

            let aside = folder.appendingPathComponent("index.journal.corrupt-\(stamp)")
            #expect(try Data(contentsOf: aside.appendingPathComponent("inside.txt")) == Data("user data".utf8))
        }
    }

    @Test func anEntriesFolderThatIsAFileIsSetAside() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("not a folder".utf8).write(to: folder.appendingPathComponent("entries"))
            let store = try fixture.open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            #expect(try store.value(forKey: "a") == Item(name: "a", number: 1))
            let aside = folder.appendingPathComponent("entries.corrupt-\(stamp)")
            #expect(try Data(contentsOf: aside) == Data("not a folder".utf8))
            #expect(fixture.reports.all.count == 1)
        }
    }
}
