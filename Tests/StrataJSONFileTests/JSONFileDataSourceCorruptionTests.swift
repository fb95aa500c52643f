import Foundation
import Strata
import StrataJSONFile
import StrataTesting
import Testing

struct JSONFileDataSourceCorruptionTests {
    /// The ManualClock's start, 1_700_000_000, in the `yyyyMMdd-HHmmss` of moved-aside files.
    private let stamp = "20231114-221320"

    private func entryFile(of key: String, in fixture: Fixture) throws -> URL {
        for file in try fixture.files() where file.hasSuffix(".json") {
            let url = fixture.folder.appendingPathComponent(file)
            if try String(contentsOf: url, encoding: .utf8).contains("\"key\":\"\(key)\"") { return url }
        }
        throw StrataError.notFound("No entry file for \(key)")
    }

    @Test func aCorruptEntryIsReportedMovedAsideAndReadsAsNotFound() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            try store.setValue(Item(name: "b", number: 2), forKey: "b")
            let file = try entryFile(of: "a", in: fixture)
            try Data("{\"key\":\"a\",\"value\":{\"na".utf8).write(to: file)

            await expectError(.notFound) { try await store.get(KeyQuery("a")) }

            let report = try #require(fixture.reports.all.first)
            #expect(fixture.reports.all.count == 1)
            #expect(report.code == .corrupt)
            #expect(report.message.contains(file.lastPathComponent))
            #expect(report.message.contains(file.lastPathComponent + ".corrupt-" + stamp))
            #expect((report.underlying as? StrataError)?.code == .dataSerialization)
            #expect(store.corruptionCount == 1)
            #expect(store.corruptionReports.map(\.message) == [report.message])
            #expect(FileManager.default.fileExists(atPath: file.path + ".corrupt-" + stamp))
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(try store.value(forKey: "b") == Item(name: "b", number: 2))
            #expect(store.sortedKeys() == ["b"])
            // The store is still writable, also under the key that was corrupt.
            try store.setValue(Item(name: "a", number: 3), forKey: "a")
            #expect(try store.value(forKey: "a") == Item(name: "a", number: 3))
        }
    }

    @Test func aCorruptEntryIsSkippedByListings() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            for name in ["a", "b", "c"] { try store.setValue(Item(name: name, number: 0), forKey: name) }
            try Data("not json".utf8).write(to: try entryFile(of: "b", in: fixture))

            #expect(try await store.getAll(AllObjectsQuery()).map(\.name) == ["a", "c"])
            #expect(fixture.reports.all.count == 1)
            await expectError(.notFound) { try await store.getAll(IdsQuery(["a", "b"])) }
        }
    }

    @Test func aValueOfAnotherTypeIsADataSerializationErrorAndItsFileStays() async throws {
        struct Other: Codable, Sendable {
            var flag: Bool
        }
        try await withTemporaryFolder { folder in
            // Given entries written with one type
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open()
                for number in 0..<5 {
                    try store.setValue(Item(name: "i\(number)", number: number), forKey: "k\(number)")
                }
            }
            let before = try fixture.files().filter { $0.hasSuffix(".json") }
            let bytes = try before.map { try Data(contentsOf: folder.appendingPathComponent($0)) }

            // When the store is reopened with an incompatible type
            do {
                let reports = ReportCollector()
                let other = try JSONFileDataSource<Other>(
                    configuration: .init(folder: folder, diagnostics: reports.diagnostics)
                )
                await expectError(.dataSerialization) { try other.value(forKey: "k1") }
                await expectError(.dataSerialization) { try await other.getAll(AllObjectsQuery()) }
                try other.removeExpired()

                // Then nothing is moved aside or counted corrupt
                #expect(reports.all.isEmpty)
                #expect(other.corruptionCount == 0)
                #expect(other.count == 5)
            }
            #expect(try fixture.files().filter { $0.hasSuffix(".json") } == before)
            #expect(try before.map { try Data(contentsOf: folder.appendingPathComponent($0)) } == bytes)
            #expect(try fixture.files().allSatisfy { !$0.contains(".corrupt-") })

            // And the values are back with the original type
            let store = try fixture.open()
            for number in 0..<5 {
                #expect(try store.value(forKey: "k\(number)") == Item(name: "i\(number)", number: number))
            }
        }
    }

    @Test func aCorruptIndexIsReportedMovedAsideAndRebuiltFromTheEntries() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open()
                try store.setValue(Item(name: "a", number: 1), forKey: "a", timeToLive: .seconds(10))
                try store.setValue(Item(name: "b", number: 2), forKey: "b")
                try store.setValue(Item(name: "c", number: 3), forKey: "c")
            }
            // Damage a complete line in the middle of the journal.
            let index = folder.appendingPathComponent("index.journal")
            var lines = try String(contentsOf: index, encoding: .utf8).components(separatedBy: "\n")
            lines[2] = "P garbage"
            try Data(lines.joined(separator: "\n").utf8).write(to: index)

            do {
                let store = try fixture.open()

                let report = try #require(fixture.reports.all.first)
                #expect(report.code == .corrupt)
                #expect(report.message.contains("index.journal"))
                #expect(report.message.contains("index.journal.corrupt-" + stamp))
                #expect(FileManager.default.fileExists(atPath: index.path + ".corrupt-" + stamp))
                #expect(store.sortedKeys() == ["a", "b", "c"])
                #expect(store.keysByRecency == ["c", "b", "a"])
                #expect(try store.value(forKey: "b") == Item(name: "b", number: 2))
                fixture.clock.advance(by: .seconds(10))
                #expect(try store.value(forKey: "a") == nil)
            }
            // The rebuilt index is healthy: a second open reports nothing new.
            _ = try fixture.open()
            #expect(fixture.reports.all.count == 1)
        }
    }

    @Test func aCorruptEntryFoundWhileRebuildingIsMovedAsideToo() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open()
                try store.setValue(Item(name: "a", number: 1), forKey: "a")
                try store.setValue(Item(name: "b", number: 2), forKey: "b")
            }
            let file = try entryFile(of: "a", in: fixture)
            try Data("{".utf8).write(to: file)
            try Data("junk\n".utf8).write(to: folder.appendingPathComponent("index.journal"))

            let store = try fixture.open()

            #expect(fixture.reports.all.count == 2)
            #expect(fixture.reports.all.contains { $0.message.contains(file.lastPathComponent) })
            #expect(store.sortedKeys() == ["b"])
            #expect(FileManager.default.fileExists(atPath: file.path + ".corrupt-" + stamp))
        }
    }

    @Test func aTornLastIndexLineIsIgnoredSilently() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open()
                try store.setValue(Item(name: "a", number: 1), forKey: "a")
            }
            let index = try FileHandle(forWritingTo: folder.appendingPathComponent("index.journal"))
            try index.seekToEnd()
            try index.write(contentsOf: Data("P 99 1700000000.0 - Yg".utf8))
            try index.close()

            do {
                let store = try fixture.open()
                try store.setValue(Item(name: "b", number: 2), forKey: "b")
            }

            #expect(fixture.reports.all.isEmpty)
            let reopened = try fixture.open()
            #expect(reopened.sortedKeys() == ["a", "b"])
            #expect(fixture.reports.all.isEmpty)
        }
    }

    @Test func aMissingIndexIsRebuiltWithoutAReport() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open()
                try store.setValue(Item(name: "a", number: 1), forKey: "a")
            }
            try FileManager.default.removeItem(at: folder.appendingPathComponent("index.journal"))

            let store = try fixture.open()

            #expect(try store.value(forKey: "a") == Item(name: "a", number: 1))
            #expect(fixture.reports.all.isEmpty)
        }
    }
}
