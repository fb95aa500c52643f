import Foundation
import Strata
import StrataJSONFile
import StrataTestSupport
import Testing

/// A JSON store holds no descriptor once it is gone — its folder, its shard folders (kept open under the process's
/// allowance while it lives), its journal: after fifty stores opened, written, read, emptied and dropped in
/// one folder, after inspectors, and after opens that failed.
struct JSONFileDataSourceDescriptorTests {
    struct Note: Codable, Hashable, Sendable {
        var text: String
    }

    @Test func storesAndInspectorsThatAreGoneHoldNothingOpen() async throws {
        try await withTemporaryFolder { folder in
            let root = folder.appendingPathComponent("store", isDirectory: true)
            for round in 0..<50 {
                let store = try JSONFileDataSource<Note>(folder: root)
                for key in ["a", "b", "c"] { try store.setValue(Note(text: "\(key)\(round)"), forKey: key) }
                #expect(try store.value(forKey: "b") == Note(text: "b\(round)"))
                // (While a store is open, it holds its folder: what is counted below is what it held.) A program
                // started meanwhile inherits none of it.
                if round == 0 {
                    #expect(!openDescriptors(under: folder).isEmpty)
                    #expect(try descriptorsAChildInherits(under: folder) == [])
                }
                #expect(try store.removeValue(forKey: "a"))
                if round % 10 == 9 { try store.removeAll() }
            }
            for access in [StoreAccess.readOnly, .readWrite] {
                let inspector = try JSONFileStoreInspector(folder: root, access: access)
                inspector.close()
            }
            #expect(openDescriptors(under: folder) == [])
        }
    }

    /// An open that fails (a file where the store's folder belongs) leaves nothing open.
    @Test func failedOpensHoldNothingOpen() async throws {
        try await withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("file")
            try Data("not a folder".utf8).write(to: file)
            for _ in 0..<20 {
                #expect(throws: StrataError.self) { _ = try JSONFileDataSource<Note>(folder: file) }
            }
            #expect(openDescriptors(under: folder) == [])
        }
    }
}
