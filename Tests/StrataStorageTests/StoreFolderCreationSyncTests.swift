import Foundation
import Strata
import Testing

@testable import StrataStorage

/// A store folder made with `durable` has its name flushed in its parent, so the folder (and what is written in
/// it) survives a power loss; the flushes are counted through `StoreFolder`'s sync watch.
struct StoreFolderCreationSyncTests {
    /// The flushes of the folder at `path` while `body` runs.
    private func flushes(of path: String, during body: () throws -> Void) throws -> Int {
        let identity = try StoreFolder.open(path, create: false).identity
        StoreFolder.watchSyncs(of: identity)
        defer { StoreFolder.unwatchSyncs(of: identity) }
        try body()
        return StoreFolder.unwatchSyncs(of: identity) ?? 0
    }

    @Test func makingAFolderDurablyFlushesItsParent() throws {
        try withTemporaryFolder { root in
            let count = try flushes(of: root) { _ = try StoreFolder.open(root + "/store", create: true, durable: true) }
            #expect(count == 1)
        }
    }

    /// `mkdir -p`: every parent a folder was made in is flushed, the existing one the chain starts from included.
    @Test func makingNestedFoldersDurablyFlushesTheFolderTheyStartFrom() throws {
        try withTemporaryFolder { root in
            let count = try flushes(of: root) {
                _ = try StoreFolder.open(root + "/a/b/store", create: true, durable: true)
            }
            #expect(count == 1)
            #expect(FileManager.default.fileExists(atPath: root + "/a/b/store"))
        }
    }

    /// Names whose first character is a combining mark (`"\u{301}b"`): the `/` before them and the mark are one
    /// `Character`. Paths are split at `/` bytes, so each folder is made in its parent and each parent flushed: split by
    /// `Character`, `a` was taken for the parent of `a/\u{301}b/\u{301}store`'s last folder, the nested folders were not
    /// made, and a folder made in `a` flushed `a`'s parent instead.
    @Test func foldersWhoseNamesBeginWithACombiningMarkAreMadeAndFlushedInTheirParents() throws {
        try withTemporaryFolder { root in
            let nested = try flushes(of: root) {
                _ = try StoreFolder.open(root + "/a/\u{301}b/\u{301}store", create: true, durable: true)
            }
            #expect(nested == 1)
            #expect(FileManager.default.fileExists(atPath: root + "/a/\u{301}b/\u{301}store"))

            let parent = try flushes(of: root + "/a") {
                _ = try StoreFolder.open(root + "/a/\u{301}other", create: true, durable: true)
            }
            #expect(parent == 1)
        }
    }

    /// Nothing is flushed when the folder exists already, or when the store does not promise durability.
    @Test func anExistingFolderOrAnAtomicStoreFlushesNothing() throws {
        try withTemporaryFolder { root in
            let atomic = try flushes(of: root) { _ = try StoreFolder.open(root + "/store", create: true) }
            let existing = try flushes(of: root) {
                _ = try StoreFolder.open(root + "/store", create: true, durable: true)
            }
            #expect(atomic == 0)
            #expect(existing == 0)
        }
    }
}

/// `subfolder(_:create:durable:)` flushes the folder it made a subfolder in, as `open(_:create:durable:)` does.
struct StoreFolderSubfolderSyncTests {
    @Test(arguments: [true, false])
    func makingASubfolderDurablyFlushesItsParentOnce(_ durable: Bool) throws {
        try withTemporaryFolder { root in
            let folder = try StoreFolder.open(root, create: false)
            StoreFolder.watchSyncs(of: folder.identity)
            defer { StoreFolder.unwatchSyncs(of: folder.identity) }

            _ = try folder.subfolder("entries", create: true, durable: durable)
            _ = try folder.subfolder("entries", create: true, durable: durable)

            #expect(StoreFolder.unwatchSyncs(of: folder.identity) == (durable ? 1 : 0))
            #expect(try folder.kind(of: "entries") == .folder)
        }
    }
}
