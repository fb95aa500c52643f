import Foundation
import Strata
import StrataFile
import StrataStorage
import StrataTestSupport
import Testing

/// A folder checked, then opened again by its path (what the `strata` tool does between its check and its
/// inspector): when another folder was put at the path meanwhile, the inspector is refused with `conflict` and
/// neither folder is touched.
struct FileStoreInspectorSwappedFolderTests {
    @Test func anInspectorExpectingTheCheckedFolderRefusesAnotherAtItsPath() throws {
        let folder = try TemporaryFolder()
        for identifier in ["checked", "other"] {
            let store = try folder.makeStore(identifier)
            try store.setValue(.pattern(100), forKey: identifier)
        }
        let path = folder.storeURL("checked")
        let moved = folder.storeURL("moved")
        let identity = try StoreFolder.open(path.path, create: false).identity
        try FileManager.default.moveItem(at: path, to: moved)
        try FileManager.default.moveItem(at: folder.storeURL("other"), to: path)
        let before = try snapshot(folder.url)

        for access in [StoreAccess.readOnly, .readWrite] {
            #expect {
                _ = try FileStoreInspector(folder: path, access: access, expecting: identity)
            } throws: {
                ($0 as? StrataError)?.code == .conflict
            }
        }

        #expect(try snapshot(folder.url) == before)
        let inspector = try FileStoreInspector(folder: moved, access: .readWrite, expecting: identity)
        #expect(inspector.entries().count == 1)
    }
}
