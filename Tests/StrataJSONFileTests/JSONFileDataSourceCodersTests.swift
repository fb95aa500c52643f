import Foundation
import Strata
import StrataJSONFile
import StrataTestSupport
import Testing

/// A store opened with other coders than the ones that wrote it (a tool with plain coders over an app's store whose
/// encoder converts keys to snake case): its intact entries are left where they are, never set aside as damage.
struct JSONFileDataSourceCodersTests {
    /// A value whose field names differ in snake case.
    struct Note: Codable, Sendable, Equatable {
        var longTitle: String
    }

    /// The app's store: keys converted to snake case, as an app sharing its coders with a server API writes them.
    private func snakeCase(_ folder: URL) throws -> JSONFileDataSource<Note> {
        try JSONFileDataSource(
            configuration: .init(
                folder: folder,
                makeEncoder: SnakeCaseCoders.makeEncoder,
                makeDecoder: SnakeCaseCoders.makeDecoder
            )
        )
    }

    /// Every file of the store's folder, at any depth, by path relative to it.
    private func files(in folder: URL) throws -> [String] {
        let walker = FileManager.default.enumerator(atPath: folder.path)
        return (walker?.allObjects as? [String] ?? []).sorted()
    }

    /// Before, a rebuild of the index with plain coders (a torn index, then a tool's `verify --repair`) set every
    /// entry aside as damaged: the app reopened an empty store.
    @Test func aRebuildWithOtherCodersLeavesTheEntriesAndRefusesToOpen() async throws {
        try await withTemporaryFolder { folder in
            // Given an app's store of three entries whose index must be rebuilt
            do {
                let store = try snakeCase(folder)
                for number in 1...3 { try store.setValue(Note(longTitle: "n\(number)"), forKey: "k\(number)") }
            }
            try FileManager.default.removeItem(at: folder.appendingPathComponent("index.journal"))
            let before = try files(in: folder)

            // When it is opened with plain coders
            let error = #expect(throws: StrataError.self) { _ = try JSONFileDataSource<Note>(folder: folder) }

            // Then the open fails with a serialization error that names the cause, and nothing was moved
            #expect(error?.code == .dataSerialization)
            #expect(error?.message.contains("other coders") == true, "\(String(describing: error))")
            #expect(try files(in: folder).filter { $0.contains(".corrupt-") }.isEmpty)
            #expect(try files(in: folder).filter { $0.hasSuffix(".json") } == before.filter { $0.hasSuffix(".json") })

            // And the app's own coders open it with every entry
            let store = try snakeCase(folder)
            #expect(store.count == 3)
            #expect(try store.value(forKey: "k2") == Note(longTitle: "n2"))
        }
    }

    /// Before, a read with plain coders of an entry the app wrote set its file aside as damaged.
    @Test func aReadWithOtherCodersLeavesTheEntry() async throws {
        try await withTemporaryFolder { folder in
            do {
                let store = try snakeCase(folder)
                try store.setValue(Note(longTitle: "one"), forKey: "k")
            }

            let error = try {
                let plain = try JSONFileDataSource<Note>(folder: folder)
                return #expect(throws: StrataError.self) { _ = try plain.value(forKey: "k") }
            }()

            #expect(error?.code == .dataSerialization)
            #expect(try files(in: folder).filter { $0.contains(".corrupt-") }.isEmpty)
            #expect(try snakeCase(folder).value(forKey: "k") == Note(longTitle: "one"))
        }
    }

    /// An entry file the index does not name, written with other coders (left by a crash, or another version of the
    /// app): reported and left where it is, and the store opens and cleans as ever — it made every open and every
    /// `removeExpired()` fail.
    @Test func anUnindexedEntryWrittenWithOtherCodersIsLeftAndReported() async throws {
        try await withTemporaryFolder { folder in
            // Given an app's store with plain coders, and an entry file copied into it from a store in snake case
            let snakeFolder = folder.appendingPathComponent("snake")
            let appFolder = folder.appendingPathComponent("app")
            do {
                try snakeCase(snakeFolder).setValue(Note(longTitle: "other"), forKey: "b")
                try JSONFileDataSource<Note>(folder: appFolder).setValue(Note(longTitle: "one"), forKey: "a")
            }
            let entryFiles = try files(in: snakeFolder).filter { $0.hasPrefix("entries/") && $0.hasSuffix(".json") }
            let copied = try #require(entryFiles.first)
            let destination = appFolder.appendingPathComponent(copied)
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try FileManager.default.copyItem(at: snakeFolder.appendingPathComponent(copied), to: destination)

            // When the app opens its store and cleans it
            let reports = ReportCollector()
            let store = try JSONFileDataSource<Note>(
                configuration: .init(folder: appFolder, diagnostics: reports.diagnostics)
            )
            try store.removeExpired()

            // Then its entry is there, the foreign file is left and reported
            #expect(try store.value(forKey: "a") == Note(longTitle: "one"))
            #expect(FileManager.default.fileExists(atPath: destination.path))
            #expect(reports.all.contains { $0.code == .dataSerialization })
        }
    }
}
