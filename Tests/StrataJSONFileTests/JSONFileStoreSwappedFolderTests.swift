import Foundation
import Strata
import StrataStorage
import Testing

@testable import StrataJSONFile

/// A folder checked, then opened again by its path (what the `strata` tool does between its check and its
/// inspector, and between its inspector and the store that removes entries): when another folder was put at the
/// path meanwhile, the open is refused with `conflict` and neither folder is touched.
struct JSONFileStoreSwappedFolderTests {
    /// Two closed stores side by side, `checked` and `other`, one entry each; returns the checked one's identity
    /// after moving it aside and putting `other` at its path (`checked` then lives at `moved`).
    private func swapStores(in root: URL) throws -> (identity: FolderIdentity, path: URL, moved: URL) {
        let path = root.appendingPathComponent("checked")
        let other = root.appendingPathComponent("other")
        let moved = root.appendingPathComponent("moved")
        for (folder, name) in [(path, "a"), (other, "b")] {
            let store = try Fixture(folder: folder).open()
            try store.setValue(Item(name: name, number: 1), forKey: name)
        }
        let identity = try StoreFolder.open(path.path, create: false).identity
        try FileManager.default.moveItem(at: path, to: moved)
        try FileManager.default.moveItem(at: other, to: path)
        return (identity, path, moved)
    }

    @Test func anInspectorExpectingTheCheckedFolderRefusesAnotherAtItsPath() async throws {
        try await withTemporaryFolder { root in
            let (identity, path, moved) = try swapStores(in: root)
            let before = try tree(of: root)

            for access in [StoreAccess.readOnly, .readWrite] {
                await expectError(.conflict) {
                    _ = try JSONFileStoreInspector(folder: path, access: access, expecting: identity)
                }
            }

            #expect(try tree(of: root) == before)
            try FileManager.default.removeItem(at: path)
            await expectError(.conflict) {
                _ = try JSONFileStoreInspector(folder: path, access: .readOnly, expecting: identity)
            }
            let inspector = try JSONFileStoreInspector(folder: moved, access: .readOnly, expecting: identity)
            inspector.close()
        }
    }

    @Test func aStoreExpectingTheCheckedFolderRefusesAnotherAtItsPathAndMakesNoneWhereNoneIs() async throws {
        try await withTemporaryFolder { root in
            let (identity, path, moved) = try swapStores(in: root)
            var configuration = Fixture(folder: path).configuration()
            configuration.expectedFolder = identity
            let before = try tree(of: root)

            await expectError(.conflict) { _ = try JSONFileDataSource(configuration: configuration) }
            #expect(try tree(of: root) == before)

            try FileManager.default.removeItem(at: path)
            await expectError(.conflict) { _ = try JSONFileDataSource(configuration: configuration) }
            #expect(!itemExists(path))

            configuration.folder = moved
            let store = try JSONFileDataSource(configuration: configuration)
            #expect(try store.value(forKey: "a") == Item(name: "a", number: 1))
        }
    }
}
