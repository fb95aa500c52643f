import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataJSONFile

/// How a `JSONFileStoreInspector` holds a folder: read-only changes nothing (not even on read-only media),
/// read-write holds it alone, and only a folder with a JSON store's marker is a store.
struct JSONFileStoreInspectorAccessTests {
    /// A closed store with three entries, one damaged, and no index.
    private func makeDamagedStore(in folder: URL) throws {
        let fixture = Fixture(folder: folder)
        do {
            let store = try fixture.open()
            for name in ["a", "b", "c"] { try store.setValue(Item(name: name, number: 1), forKey: name) }
        }
        let (shard, file) = entryLocation(of: "b")
        try Data("{\"key\":\"b\",\"val".utf8).write(to: folder.appendingPathComponent("entries/\(shard)/\(file)"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("index.journal"))
    }

    @Test func aValueIsReadWithoutChangingTheStoreAndDamageIsThrownNotMoved() async throws {
        try await withTemporaryFolder { folder in
            try makeDamagedStore(in: folder)
            let before = try tree(of: folder)
            let inspector = try JSONFileStoreInspector(folder: folder, access: .readOnly)
            defer { inspector.close() }

            #expect(try inspector.value(forKey: "a", as: Item.self) == Item(name: "a", number: 1))
            #expect(try inspector.value(forKey: "missing", as: Item.self) == nil)
            await expectError(.dataSerialization) { try inspector.value(forKey: "b", as: Item.self) }
            await expectError(.dataSerialization) { try inspector.value(forKey: "a", as: [Int].self) }
            #expect(try tree(of: folder) == before)
        }
    }

    @Test func aForeignFolderIsNoStoreAndIsLeftAlone() async throws {
        try await withTemporaryFolder { folder in
            // A user's folder that merely looks like a store
            let shard = folder.appendingPathComponent("entries/ab")
            try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
            try Data("{\"mine\":1}".utf8).write(
                to: shard.appendingPathComponent(String(repeating: "a", count: 32) + ".json")
            )
            try Data("user's".utf8).write(to: shard.appendingPathComponent(".tmp-1"))
            try Data("P 1 2 - a 0\n".utf8).write(to: folder.appendingPathComponent("index.journal"))
            let before = try tree(of: folder)

            #expect(!JSONFileStoreInspector.isStore(at: folder))
            await expectError(.invalidArgument) { try JSONFileStoreInspector(folder: folder, access: .readOnly) }
            await expectError(.invalidArgument) { try JSONFileStoreInspector(folder: folder, access: .readWrite) }
            #expect(try tree(of: folder) == before)
        }
    }

    @Test func aFileStoreIsNoJSONStore() async throws {
        try await withTemporaryFolder { folder in
            try Data("strata-store 1 file\n".utf8).write(to: folder.appendingPathComponent(".strata-store"))
            #expect(!JSONFileStoreInspector.isStore(at: folder))
            await expectError(.invalidArgument) { try JSONFileStoreInspector(folder: folder, access: .readOnly) }
            await expectError(.invalidArgument) { try JSONFileDataSource<Item>(folder: folder) }
        }
    }

    @Test func readOnlyInspectionCreatesRenamesAndRepairsNothing() async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("store")
            try makeDamagedStore(in: folder)
            #expect(JSONFileStoreInspector.isStore(at: folder))
            let before = try tree(of: folder)

            let inspector = try JSONFileStoreInspector(folder: folder, access: .readOnly)
            let report = try inspector.report(verifying: true)
            inspector.close()

            #expect(report.indexProblem == "missing index.journal")
            #expect(report.entries.count == 3)
            #expect(report.entries.filter { $0.problem != nil }.count == 1)
            #expect(try tree(of: folder) == before)
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.journal").path))
        }
    }

    @Test(.enabled(if: BindMount.isAvailable, "needs root and mount(8) for a read-only bind mount"))
    func readOnlyInspectionWorksOnReadOnlyMedia() async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("store")
            try makeDamagedStore(in: folder)
            // Without a lock file too: a shared hold creates none.
            try FileManager.default.removeItem(at: folder.appendingPathComponent(".strata-lock"))
            let mount: ReadOnlyBindMount
            switch ReadOnlyBindMount.make(of: folder) {
            case .success(let made): mount = made
            case .failure(let error):
                Issue.record("No read-only bind mount where one can be made: \(error.code)")
                return
            }
            defer { mount.unmount() }
            let before = try tree(of: folder)

            let report = try JSONFileStoreInspector(folder: mount.url, access: .readOnly).report(verifying: true)

            #expect(report.entries.count == 3)
            #expect(report.entries.filter { $0.problem != nil }.count == 1)
            #expect(try tree(of: folder) == before)
            // A store, which writes, cannot open there; read-write inspection neither.
            await expectError(.io) { try JSONFileStoreInspector(folder: mount.url, access: .readWrite) }
        }
    }

    @Test func readWriteInspectionHoldsTheFolderAlone() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open()
                try store.setValue(Item(name: "a", number: 1), forKey: "a")
                await expectError(.alreadyInUse) { try JSONFileStoreInspector(folder: folder, access: .readWrite) }
                await expectError(.alreadyInUse) { try JSONFileStoreInspector(folder: folder, access: .readOnly) }
            }
            let inspector = try JSONFileStoreInspector(folder: folder, access: .readWrite)
            #expect(inspector.access == .readWrite)
            #expect(try inspector.report(verifying: true).entries.map(\.key) == ["a"])
            await expectError(.alreadyInUse) { try fixture.open() }
            inspector.close()
            #expect(try fixture.open().sortedKeys() == ["a"])
        }
    }
}

/// Times no store writes, as a damaged or planted entry file or the tool's `--max-age` gives them: the inspector
/// judges them as the store's rebuild does, and no expiry it reports is infinite (printed as the year 506713).
struct JSONFileStoreInspectorTimesTests {
    @Test func anEntryFileWhoseTimesAddUpToInfinityIsReportedDamaged() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open()
                try store.setValue(Item(name: "a", number: 1), forKey: "a")
            }
            let (shard, file) = entryLocation(of: "a")
            let planted = #"{"key":"a","storedAt":1e308,"maxAge":1e308,"sequence":1,"value":{"name":"a","number":1}}"#
            try Data(planted.utf8).write(to: folder.appendingPathComponent("entries/\(shard)/\(file)"))
            try FileManager.default.removeItem(at: folder.appendingPathComponent("index.journal"))

            let inspector = try JSONFileStoreInspector(folder: folder, access: .readOnly)
            let report = try inspector.report(verifying: true)
            inspector.close()

            let entry = try #require(report.entries.first)
            #expect(entry.problem?.contains("not a finite number") == true)
            #expect(entry.expiresAt(defaultMaxAge: nil).map { $0.timeIntervalSince1970.isFinite } != false)
        }
    }

    @Test func anExpiryPastAnyDateIsTheDistantFuture() {
        let entry = JSONFileStoreEntry(
            key: "a",
            path: "entries/ab/a.json",
            fileSize: 1,
            storedAt: Date(timeIntervalSince1970: 1.7e308),
            maxAge: nil,
            sequence: 1,
            problem: nil
        )
        #expect(entry.expiresAt(defaultMaxAge: 1e308) == .distantFuture)
        #expect(entry.expiresAt(defaultMaxAge: 60) == .distantFuture)
        #expect(entry.expiresAt(defaultMaxAge: nil) == nil)
        #expect(entry.expiresAt(defaultMaxAge: .nan) == .distantPast)
        #expect(entry.expiresAt(defaultMaxAge: -.infinity) == .distantPast)
    }
}
