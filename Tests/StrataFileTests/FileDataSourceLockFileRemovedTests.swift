import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

/// The lock file of a live store removed, or replaced by another file (a user cleaning up dot files): another
/// process still finds the store in use, as it does with the lock file in place, and can open it once the store
/// is closed.
struct FileDataSourceLockFileRemovedTests {
    @Test(.timeLimit(.minutes(1)), arguments: ["removed", "replaced"])
    func anotherProcessCannotOpenAStoreWhoseLockFileWentWhileItWasOpen(_ how: String) async throws {
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore()
        try store?.setValue(.pattern(10), forKey: "first")
        let lockFile = folder.storeURL().appendingPathComponent(".strata-lock")

        // Given the lock file removed, or another file put in its place, while the store is open
        try FileManager.default.removeItem(at: lockFile)
        if how == "replaced" { try Data().write(to: lockFile) }

        // When another process opens the store, then it is in use, and the store goes on working
        let said = try await onDedicatedThread {
            try probeFromAnotherProcess(location: folder.url, identifier: "store")
        }
        #expect(said == "in use")
        try store?.setValue(.pattern(20), forKey: "second")
        #expect(store?.value(forKey: "first") == .pattern(10))

        // And once it is closed, the other process opens it
        store = nil
        let later = try await onDedicatedThread {
            try probeFromAnotherProcess(location: folder.url, identifier: "store")
        }
        #expect(later == "opened")
    }
}
