import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

/// One live owner per store folder, however its path is spelled: through a symlinked parent or a bind mount a
/// second store is refused, and the refused attempt never releases the first store's lock — which a second
/// process proves.
struct FileDataSourceAliasPathTests {
    private func open(_ location: URL) throws -> FileDataSource {
        try FileDataSource(configuration: .init(location: .url(location), identifier: "store"))
    }

    /// Opens a store at `real`, then tries a second store and an inspector through `alias` (another path to
    /// the same folder), drops the attempts, and checks another process still finds the folder locked.
    private func expectSingleOwner(real: URL, alias: URL) async throws {
        // Given a live store
        var first: FileDataSource? = try open(real)
        try first?.setValue(.pattern(10), forKey: "first")

        // When a second store and an inspector are tried through the alias
        for _ in 0..<3 {
            #expect { _ = try open(alias) } throws: { ($0 as? StrataError)?.code == .alreadyInUse }
            #expect {
                _ = try FileStoreInspector(folder: alias.appendingPathComponent("store"), access: .readOnly)
            } throws: { ($0 as? StrataError)?.code == .alreadyInUse }
        }

        // Then the folder is still locked for another process, through either path, and the first store works
        for location in [real, alias] {
            let said = try await onDedicatedThread {
                try probeFromAnotherProcess(location: location, identifier: "store")
            }
            #expect(said == "in use", "\(location.path)")
        }
        try first?.setValue(.pattern(20), forKey: "second")
        #expect(first?.value(forKey: "first") == .pattern(10))
        #expect(first?.value(forKey: "second") == .pattern(20))

        // And once it is closed, the folder opens through the alias and from another process
        first = nil
        let said = try await onDedicatedThread { try probeFromAnotherProcess(location: alias, identifier: "store") }
        #expect(said == "opened")
        let reopened = try open(alias)
        #expect(reopened.value(forKey: "second") == .pattern(20))
    }

    @Test(.timeLimit(.minutes(1)))
    func aSymlinkedParentReachesTheSameOwner() async throws {
        let folder = try TemporaryFolder()
        let real = folder.url.appendingPathComponent("real", isDirectory: true)
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false)
        let alias = folder.url.appendingPathComponent("alias", isDirectory: true)
        try FileManager.default.createSymbolicLink(at: alias, withDestinationURL: real)

        try await expectSingleOwner(real: real, alias: alias)
    }

    @Test(
        .timeLimit(.minutes(1)),
        .enabled(if: BindMount.isAvailable, "needs root and mount(8) for a read-only bind mount")
    )
    func aBindMountReachesTheSameOwner() async throws {
        let folder = try TemporaryFolder()
        let real = folder.url.appendingPathComponent("real", isDirectory: true)
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false)
        do {
            let mount = try #require(
                BindMount.make(real, at: folder.url.appendingPathComponent("mounted", isDirectory: true))
            )
            try await expectSingleOwner(real: real, alias: mount.url)
        }
        withExtendedLifetime(folder) {}  // unmounted before the folder is removed
    }

    @Test(.timeLimit(.minutes(1)))
    func aLockFileSharedWithAnotherFolderKeepsItsLockWhenTheOtherStoreCloses() async throws {
        // Given two store folders whose lock files are one file under two names (a hard link)
        let folder = try TemporaryFolder()
        _ = try folder.makeStore("a")
        try FileManager.default.createDirectory(at: folder.storeURL("b"), withIntermediateDirectories: true)
        let lockA = folder.storeURL("a").appendingPathComponent(".strata-lock").path
        let lockB = folder.storeURL("b").appendingPathComponent(".strata-lock").path
        try FileManager.default.linkItem(atPath: lockA, toPath: lockB)

        // When both stores open in this process, and the second one closes
        let first = try folder.makeStore("a")
        var second: FileDataSource? = try folder.makeStore("b")
        try second?.setValue(.pattern(10), forKey: "b")
        second = nil

        // Then the first store's folder is still locked for another process: its lock file is its own now, and the
        // other folder's name keeps the old file
        let said = try await onDedicatedThread { try probeFromAnotherProcess(location: folder.url, identifier: "a") }
        #expect(said == "in use")
        var infoA = stat()
        var infoB = stat()
        #expect(lstat(lockA, &infoA) == 0 && lstat(lockB, &infoB) == 0)
        #expect(infoA.st_nlink == 1 && infoB.st_nlink == 1 && infoA.st_ino != infoB.st_ino)
        try first.setValue(.pattern(20), forKey: "a")
        #expect(first.value(forKey: "a") == .pattern(20))
    }
}
