import Foundation
import Strata
import StrataJSONFile
import StrataTesting
import Testing

struct JSONFileDataSourceLifetimeTests {
    @Test func reopeningKeepsValuesMaxAgesAndRecency() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            // Given a store with a per-entry max age and a read that changed the LRU order
            do {
                let store = try fixture.open()
                try store.setValue(Item(name: "a", number: 1), forKey: "a")
                try store.setValue(Item(name: "b", number: 2), forKey: "b", timeToLive: .seconds(10))
                try store.setValue(Item(name: "c", number: 3), forKey: "c")
                _ = try store.value(forKey: "a")
                #expect(store.keysByRecency == ["a", "c", "b"])
            }
            // When it is opened again
            let reopened = try fixture.open()
            // Then values, order and max ages are those of before
            #expect(reopened.keysByRecency == ["a", "c", "b"])
            #expect(try reopened.value(forKey: "c") == Item(name: "c", number: 3))
            fixture.clock.advance(by: .seconds(10))
            #expect(try reopened.value(forKey: "b") == nil)
            #expect(try reopened.value(forKey: "a") == Item(name: "a", number: 1))
        }
    }

    @Test func countLimitEvictsTheLeastRecentlyUsedAndReadsCountAsUse() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open(countLimit: 3)
            for name in ["a", "b", "c"] { try store.setValue(Item(name: name, number: 0), forKey: name) }
            _ = try store.value(forKey: "a")

            try store.setValue(Item(name: "d", number: 0), forKey: "d")

            #expect(store.sortedKeys() == ["a", "c", "d"])
            #expect(store.count == 3)
            #expect(try fixture.files().filter { $0.hasSuffix(".json") }.count == 3)
        }
    }

    @Test func evictionOrderSurvivesAReopen() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open(countLimit: 3)
                for name in ["a", "b", "c"] { try store.setValue(Item(name: name, number: 0), forKey: name) }
                _ = try await store.get(KeyQuery("a"))
                _ = try await store.getAll(IdsQuery(["b"]))
            }
            let store = try fixture.open(countLimit: 3)
            try store.setValue(Item(name: "d", number: 0), forKey: "d")
            #expect(store.sortedKeys() == ["a", "b", "d"])
            try store.setValue(Item(name: "e", number: 0), forKey: "e")
            #expect(store.sortedKeys() == ["b", "d", "e"])
        }
    }

    @Test func rewritingAKeyDoesNotGrowTheCount() async throws {
        try await withTemporaryFolder { folder in
            let store = try Fixture(folder: folder).open(countLimit: 2)
            for number in 0..<5 { try store.setValue(Item(name: "a", number: number), forKey: "a") }
            try store.setValue(Item(name: "b", number: 0), forKey: "b")
            #expect(store.sortedKeys() == ["a", "b"])
            #expect(try store.value(forKey: "a")?.number == 4)
        }
    }

    @Test func defaultMaxAgeExpiresExactlyAtTheBoundary() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open(timeToLive: .seconds(300))
            try store.setValue(Item(name: "a", number: 1), forKey: "a")

            fixture.clock.advance(by: .milliseconds(299_999))
            #expect(try store.value(forKey: "a") != nil)
            #expect(store.sortedKeys() == ["a"])

            fixture.clock.advance(by: .milliseconds(1))
            #expect(try store.value(forKey: "a") == nil)
            await expectError(.notFound) { try await store.get(KeyQuery("a")) }
            #expect(store.sortedKeys().isEmpty)
            // The list rule: a store that holds nothing and was given no list answer does not know the list.
            await expectError(.notFound) { try await store.getAll(AllObjectsQuery()) }
        }
    }

    @Test func perEntryMaxAgeOverridesTheDefault() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open(timeToLive: .seconds(300))
            try store.setValue(Item(name: "short", number: 1), forKey: "short", timeToLive: .seconds(10))
            try store.setValue(Item(name: "long", number: 2), forKey: "long", timeToLive: .seconds(1_000))
            try store.setValue(Item(name: "default", number: 3), forKey: "default")

            fixture.clock.advance(by: .seconds(10))
            #expect(try store.value(forKey: "short") == nil)
            #expect(store.sortedKeys() == ["default", "long"])

            fixture.clock.advance(by: .seconds(290))
            #expect(store.sortedKeys() == ["long"])

            fixture.clock.advance(by: .seconds(700))
            #expect(store.sortedKeys().isEmpty)
        }
    }

    @Test func cleanupRemovesExpiredEntriesAndTheirFiles() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open(timeToLive: .seconds(60))
                try store.setValue(Item(name: "old", number: 1), forKey: "old")
                fixture.clock.advance(by: .seconds(30))
                try store.setValue(Item(name: "new", number: 2), forKey: "new")
                fixture.clock.advance(by: .seconds(30))
                #expect(store.count == 2)

                #expect(try store.removeExpired() == 1)

                #expect(store.count == 1)
                #expect(try fixture.files().filter { $0.hasSuffix(".json") }.count == 1)
            }
            #expect(try fixture.open(timeToLive: .seconds(60)).sortedKeys() == ["new"])
        }
    }

    @Test func cleanupDeletesTemporaryFilesAndTakesInOrSetsAsideUnindexedEntries() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            // Leftovers of a crash: a temporary file, an intact entry file the index does not name (a put stopped
            // before its index line), and a damaged one.
            let shard = folder.appendingPathComponent("entries/00")
            try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: shard.appendingPathComponent(".strata-tmp-123"))
            let damaged = shard.appendingPathComponent(String(repeating: "0", count: 32) + ".json")
            try Data("{}".utf8).write(to: damaged)
            // Writes create their temporary files in the store's folder, then rename them into a shard.
            try Data("{}".utf8).write(to: folder.appendingPathComponent(".strata-tmp-456"))

            try store.removeExpired()

            #expect(try fixture.files().filter { $0.contains("tmp-") }.isEmpty)
            #expect(FileManager.default.fileExists(atPath: damaged.path + ".corrupt-20231114-221320"))
            #expect(fixture.reports.all.count == 1)
            #expect(try store.value(forKey: "a") == Item(name: "a", number: 1))
        }
    }

    /// An item already at the name a damaged file is set aside under is never replaced: the rename refuses to
    /// (`renameWithoutReplacing`), and the next suffix is taken. (Only the planted item that comes between a look at
    /// the name and the rename, which the look let through before, is not reproduced here.)
    @Test func settingAsideNeverReplacesAnItemAtTheCorruptName() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            let shard = folder.appendingPathComponent("entries/00")
            try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
            let damaged = shard.appendingPathComponent(String(repeating: "0", count: 32) + ".json")
            try Data("{}".utf8).write(to: damaged)
            try Data("planted".utf8).write(to: URL(fileURLWithPath: damaged.path + ".corrupt-20231114-221320"))

            try store.removeExpired()

            #expect(
                try Data(contentsOf: URL(fileURLWithPath: damaged.path + ".corrupt-20231114-221320"))
                    == Data("planted".utf8)
            )
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: damaged.path + ".corrupt-20231114-221320-2"))
                    == Data("{}".utf8)
            )
        }
    }

    @Test func cleanupTakesInAnIntactEntryTheIndexDoesNotName() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            try store.setValue(Item(name: "b", number: 2), forKey: "b")
            // An entry file kept aside while its key is removed, then put back: as after a crash between the
            // rename of a put and its index line.
            let files = try fixture.files().filter { $0.hasSuffix(".json") }
            let fileB = try #require(
                try files.first {
                    try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8).contains("\"b\"")
                }
            )
            let bytes = try Data(contentsOf: folder.appendingPathComponent(fileB))
            try store.removeValue(forKey: "b")
            try bytes.write(to: folder.appendingPathComponent(fileB))

            try store.removeExpired()

            #expect(try Data(contentsOf: folder.appendingPathComponent(fileB)) == bytes)
            #expect(try store.value(forKey: "b") == Item(name: "b", number: 2))
            #expect(fixture.reports.all.isEmpty)
        }
    }

    @Test func aRemovedEntryFileReadsAsNotFound() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            for file in try fixture.files() where file.hasSuffix(".json") {
                try FileManager.default.removeItem(at: folder.appendingPathComponent(file))
            }
            #expect(try store.value(forKey: "a") == nil)
            #expect(store.count == 0)
            #expect(fixture.reports.all.isEmpty)
        }
    }
}
