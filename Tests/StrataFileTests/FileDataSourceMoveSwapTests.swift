import Foundation
import Strata
import StrataFile
import StrataStorage
import StrataTestSupport
import Testing

/// `move(fileAt:)` opens the caller's file, appends its metadata and renames it by path; the path's folder is the
/// caller's, so another file can be put at the path in between. The store takes in only the file it opened.
struct FileDataSourceMoveSwapTests {
    /// The path is made to name another file just before the rename: the move fails with `io`, nothing is stored
    /// (the key's earlier value stays), the other file is put back at the path byte for byte, and the file opened is
    /// as it was, wherever it was moved. Before: the other file was renamed over the entry (not the store's file, and
    /// later deleted by it as damage) and the earlier value was lost.
    @Test func aFileSwappedInAtThePathIsPutBackAndNothingIsStored() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try store.setValue(.pattern(300, seed: 7), forKey: "k")
        let download = folder.url.appendingPathComponent("download.bin")
        try Data.pattern(1_000).write(to: download)
        let movedAside = folder.url.appendingPathComponent("moved-aside.bin")
        let foreign = Data("a file the store never opened".utf8)

        let error = #expect(throws: StrataError.self) {
            try StoreFolder.$beforeTakingIn.withValue({ path in
                try? FileManager.default.moveItem(atPath: path, toPath: movedAside.path)
                try? foreign.write(to: URL(fileURLWithPath: path))
            }) {
                try store.move(fileAt: download, forKey: "k")
            }
        }

        #expect(error?.code == .io)
        #expect(try Data(contentsOf: download) == foreign, "the file swapped in was not put back")
        #expect(try Data(contentsOf: movedAside) == .pattern(1_000), "the file opened was not left as it was")
        #expect(store.value(forKey: "k") == .pattern(300, seed: 7), "the earlier value was lost")
    }

    /// A link swapped in at the path is put back as a link; what it points to is never read into the store.
    @Test func aLinkSwappedInAtThePathIsPutBackAsALink() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let download = folder.url.appendingPathComponent("download.bin")
        try Data.pattern(100).write(to: download)
        let secret = folder.url.appendingPathComponent("secret.txt")
        try Data("secret".utf8).write(to: secret)

        #expect(throws: StrataError.self) {
            try StoreFolder.$beforeTakingIn.withValue({ path in
                try? FileManager.default.removeItem(atPath: path)
                try? FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: secret.path)
            }) {
                try store.move(fileAt: download, forKey: "k")
            }
        }

        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: download.path) == secret.path)
        #expect(store.value(forKey: "k") == nil)
        #expect(try Data(contentsOf: secret) == Data("secret".utf8))
    }

    private static let strayName = ".strata-tmp-abc123"

    /// A store's folder holding a file swapped in at ``strayName``, and the path it came from, taken again since.
    private func strayFileAndTakenPath() throws -> (TemporaryFolder, StoreFolder, outside: URL) {
        let folder = try TemporaryFolder()
        _ = try folder.makeStore()
        let storeFolder = try StoreFolder.open(folder.storeURL().path, create: false)
        let outside = folder.url.appendingPathComponent("taken.bin")
        try Data("taken since".utf8).write(to: outside)
        try Data("the file swapped in".utf8).write(to: folder.storeURL().appendingPathComponent(Self.strayName))
        return (folder, storeFolder, outside)
    }

    /// When the path has been taken again by the time the file is to go back, the file is kept in the store's folder
    /// under a name the store never reads or deletes: it survives the store's next open.
    @Test func aFileThatCannotGoBackIsKeptAsideAndSurvivesReopening() throws {
        let (folder, storeFolder, outside) = try strayFileAndTakenPath()

        let kept = try #require(try storeFolder.giveBack(Self.strayName, to: outside.path))

        #expect(kept.hasPrefix(StoreFolder.foreignPrefix))
        #expect(try Data(contentsOf: outside) == Data("taken since".utf8), "the path taken since was replaced")
        _ = try folder.makeStore()
        let keptURL = folder.storeURL().appendingPathComponent(kept)
        #expect(try Data(contentsOf: keptURL) == Data("the file swapped in".utf8))
    }

    /// When the file can be neither moved back nor kept under a name the store never deletes (here, an immutable
    /// folder refuses the rename), `giveBack` throws: the file is at its temporary name, which the next open
    /// removes. Before, it returned that temporary name, and the move's error said the file was kept there, "never
    /// read or deleted".
    @Test func aFileThatCanBeNeitherGivenBackNorKeptIsAnError() throws {
        let (folder, storeFolder, outside) = try strayFileAndTakenPath()
        try #require(setImmutable(folder.storeURL(), true))
        defer { _ = setImmutable(folder.storeURL(), false) }

        #expect(throws: POSIXCallError.self) { try storeFolder.giveBack(Self.strayName, to: outside.path) }
        #expect(try Data(contentsOf: outside) == Data("taken since".utf8), "the path taken since was replaced")
    }
}
