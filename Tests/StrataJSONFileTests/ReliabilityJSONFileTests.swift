import Foundation
import Strata
import StrataJSONFile
import StrataTesting
import Testing

/// Reliability of the JSON store: concurrent mixed use, hostile keys and files, and a disk fault.
struct ReliabilityJSONFileTests {
    @Test func concurrentMixedOperationsLoseNoAcknowledgedWrite() async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("store")
            // Given tasks that each own six keys and read everyone's
            let models = try await Self.runMix(fixture: Fixture(folder: folder))

            // Then a reopen holds exactly the acknowledged writes, with nothing reported
            let fixture = Fixture(folder: folder)
            let reopened = try fixture.open()
            #expect(Set(reopened.sortedKeys()) == Set(models.keys))
            for (key, item) in models { #expect(try reopened.value(forKey: key) == item, "\(key)") }
            #expect(fixture.reports.all.isEmpty)
        }
    }

    /// Runs 6 tasks × 150 mixed operations on a store that is closed on return; returns the acknowledged model.
    private static func runMix(fixture: Fixture) async throws -> [String: Item] {
        let store = try fixture.open()
        let models = try await withThrowingTaskGroup(of: [String: Item].self) { group in
            for task in 0..<6 {
                group.addTask {
                    var generator = SeededRandomNumberGenerator(seed: UInt64(task) + 1)
                    var model: [String: Item] = [:]
                    for step in 0..<150 {
                        let key = "t\(task)-\(Int.random(in: 0..<6, using: &generator))"
                        switch Int.random(in: 0..<100, using: &generator) {
                        case 0..<45:
                            let item = Item(name: key, number: step)
                            _ = try await store.put(item, in: KeyQuery(key))
                            model[key] = item
                        case 45..<60:
                            try await store.delete(KeyQuery(key))
                            model[key] = nil
                        case 60..<90:
                            #expect(try store.value(forKey: key) == model[key], "\(key) reads its last write")
                        case 90..<95:
                            _ = try store.removeExpired()
                        default:
                            let page = try await store.getAll(PaginationOffsetLimitQuery(offset: 0, limit: 5))
                            #expect(page.allSatisfy { $0.name.hasPrefix("t") })
                        }
                        if step % 25 == 0 { await Task.yield() }
                    }
                    return model
                }
            }
            return try await group.reduce(into: [:]) { $0.merge($1) { first, _ in first } }
        }
        #expect(store.count == models.count)
        #expect(fixture.reports.all.isEmpty)
        return models
    }

    @Test func randomKeysAndRandomFilesNeverBreakTheStore() async throws {
        try await withTemporaryFolder { parent in
            // Given 1,000 values under random keys (any bytes, any length)
            let folder = parent.appendingPathComponent("store")
            var generator = SeededRandomNumberGenerator(seed: 0xF022)
            var model: [String: Item] = [:]
            do {
                let store = try Fixture(folder: folder).open()
                for number in 0..<1_000 {
                    let length = Int.random(in: 0...(number % 50 == 0 ? 2_000 : 40), using: &generator)
                    let key = String(
                        decoding: (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) },
                        as: UTF8.self
                    )
                    // An empty key is refused (JSONFileDataSourceKeyTests); every other string is a key.
                    if key.isEmpty { continue }
                    try store.setValue(Item(name: "v", number: number), forKey: key)
                    model[key] = Item(name: "v", number: number)
                    if number % 100 == 0 { await Task.yield() }
                }
            }

            // When random bytes overwrite 50 entry files and 100 junk files appear beside them
            let fixture = Fixture(folder: folder)
            let entryFiles = try fixture.files().filter { $0.hasSuffix(".json") }.shuffled(using: &generator)
            for file in entryFiles.prefix(50) {
                try Self.randomBytes(using: &generator).write(to: folder.appendingPathComponent(file))
            }
            for index in 0..<100 {
                let name = index.isMultiple(of: 2) ? "junk-\(index).json" : "junk-\(index)"
                try Self.randomBytes(using: &generator).write(to: folder.appendingPathComponent(name))
            }

            // Then the store opens; each value is whole or missing, every damaged entry is reported, and nothing
            // was written outside the store's folder
            let store = try fixture.open()
            var missing = 0
            for (key, item) in model {
                if let read = try store.value(forKey: key) { #expect(read == item) } else { missing += 1 }
            }
            #expect(missing <= 50)
            #expect(store.corruptionCount >= missing)
            #expect(fixture.reports.all.allSatisfy { $0.code == .corrupt })
            #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["store"])
            try store.setValue(Item(name: "after", number: 1), forKey: "after")
            #expect(try store.value(forKey: "after")?.number == 1)
        }
    }

    @Test func aFileWhereTheStoreFolderMustBeIsATypedError() async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("store")
            try Data("not a folder".utf8).write(to: folder)

            await expectError(.io) { try Fixture(folder: folder).open() }
            #expect(try Data(contentsOf: folder) == Data("not a folder".utf8))
        }
    }

    @Test func aDeletedStoreFolderIsATypedErrorAndAReopenRecovers() async throws {
        try await withTemporaryFolder { parent in
            // Given a store with a value, whose folder is then deleted
            let folder = parent.appendingPathComponent("store")
            do {
                let store = try Fixture(folder: folder).open()
                try store.setValue(Item(name: "a", number: 1), forKey: "a")
                try FileManager.default.removeItem(at: folder)

                // When a value is written again: the store holds the deleted folder, never a new one at its
                // path (which anyone could have put there), so the write is a typed error
                await expectError(.io) { try store.setValue(Item(name: "b", number: 2), forKey: "b") }
                #expect(!FileManager.default.fileExists(atPath: folder.path))
            }
            // Then a reopen makes the folder again and works
            let reopened = try Fixture(folder: folder).open()
            try reopened.setValue(Item(name: "b", number: 2), forKey: "b")
            #expect(try reopened.value(forKey: "b") == Item(name: "b", number: 2))
        }
    }

    private static func randomBytes(using generator: inout SeededRandomNumberGenerator) -> Data {
        Data((0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
