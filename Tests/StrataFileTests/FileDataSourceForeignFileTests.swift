import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files the store did not make, at names it uses or handed to it: hard links to files elsewhere, a folder
/// swapped for a link, a pipe, keys that look like paths. Nothing outside the store is ever written or removed.
struct FileDataSourceForeignFileTests {
    /// `move(fileAt:)` takes a file in by appending its metadata and renaming it; a file with a second hard link
    /// (a user's document the download was linked to) would be changed under that other name too, and share its
    /// inode with the entry. Its bytes are copied in instead, and only the caller's name is removed.
    @Test func movingAFileWithAnotherHardLinkCopiesItAndLeavesTheOtherName() throws {
        // Given a downloaded file that is also a user's document, by a hard link
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let original = folder.url.appendingPathComponent("documents-report.bin")
        try Data.pattern(1_000).write(to: original)
        let download = folder.url.appendingPathComponent("download.bin")
        #expect(link(original.path, download.path) == 0)

        // When it is moved into the store
        try store.move(fileAt: download, forKey: "k")

        // Then the store holds its bytes, the caller's name is gone, and the document is as it was, alone
        #expect(store.value(forKey: "k") == .pattern(1_000))
        #expect(!FileManager.default.fileExists(atPath: download.path))
        #expect(try Data(contentsOf: original) == .pattern(1_000), "the other hard link was changed")
        #expect(try FileManager.default.attributesOfItem(atPath: original.path)[.referenceCount] as? Int == 1)
    }

    /// After such a move, `removeAll()` unlinks only the store's names: the other name survives.
    @Test func removeAllAfterMovingAHardLinkedFileKeepsTheOutsideLink() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let original = folder.url.appendingPathComponent("kept.bin")
        try Data.pattern(500).write(to: original)
        let download = folder.url.appendingPathComponent("download.bin")
        #expect(link(original.path, download.path) == 0)
        try store.move(fileAt: download, forKey: "k")
        #expect(store.value(forKey: "k") == .pattern(500))
        try store.removeAll()
        #expect(try Data(contentsOf: original) == .pattern(500), "the outside link was removed or changed")
    }

    /// A hard link to an outside file at `.strata-lock`: never written; the store locks a lock file of its own.
    @Test func aHardLinkAtTheLockFileIsNeverWritten() throws {
        let folder = try TemporaryFolder()
        do { _ = try folder.makeStore() }
        let lock = folder.storeURL().appendingPathComponent(".strata-lock")
        let victim = folder.url.appendingPathComponent("victim.txt")
        try Data("victim bytes".utf8).write(to: victim)
        try FileManager.default.removeItem(at: lock)
        #expect(link(victim.path, lock.path) == 0)
        do {
            let store = try folder.makeStore()
            try store.setValue(.pattern(10), forKey: "a")
            try store.removeAll()
            store.flush()
        }
        #expect(try Data(contentsOf: victim) == Data("victim bytes".utf8))
    }

    /// A hard link to an outside file at `.strata-index`: replaced, never written through.
    @Test func aHardLinkAtTheJournalIsNeverWrittenThrough() throws {
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            try store.setValue(.pattern(10), forKey: "a")
        }
        let journal = folder.storeURL().appendingPathComponent(".strata-index")
        let victim = folder.url.appendingPathComponent("victim.txt")
        try Data("victim bytes".utf8).write(to: victim)
        try FileManager.default.removeItem(at: journal)
        #expect(link(victim.path, journal.path) == 0)
        do {
            let store = try folder.makeStore()
            _ = store.value(forKey: "a")
            try store.removeExpired()
            store.flush()
        }
        #expect(try Data(contentsOf: victim) == Data("victim bytes".utf8))
    }

    /// A hard link to an outside file at `.strata-store`, empty (what a creation cut short leaves) or holding the
    /// store's own marker text: the store opens or refuses, and the outside file is never written through.
    @Test(arguments: [false, true])
    func aHardLinkAtTheMarkerIsNeverWrittenThrough(holdingTheMarker: Bool) throws {
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            try store.setValue(.pattern(10), forKey: "a")
        }
        let marker = folder.storeURL().appendingPathComponent(".strata-store")
        let text = holdingTheMarker ? try Data(contentsOf: marker) : Data()
        try #require(!holdingTheMarker || !text.isEmpty, "the store wrote no marker text")
        let victim = folder.url.appendingPathComponent("victim.txt")
        try text.write(to: victim)
        try FileManager.default.removeItem(at: marker)
        #expect(link(victim.path, marker.path) == 0)
        do {
            let store = try? folder.makeStore()
            _ = store?.value(forKey: "a")
            try? store?.setValue(.pattern(20), forKey: "b")
            try? store?.removeAll()
            store?.flush()
        }
        #expect(try Data(contentsOf: victim) == text, "the marker was written through its outside link")
    }

    /// `removeAll()` after the store's folder was renamed away and a link to a folder of the user's (with files named
    /// like the store's entries) put in its place: the store works on the folder it opened, not on the path.
    @Test func removeAllAfterTheFolderWasSwappedForALinkDeletesNothingOutside() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try store.setValue(.pattern(10), forKey: "a")
        let name = try #require(try folder.entryFiles().first)
        let outside = folder.url.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        try Data("victim".utf8).write(to: outside.appendingPathComponent(name))
        try Data("victim".utf8).write(to: outside.appendingPathComponent(".strata-tmp-1"))
        try FileManager.default.moveItem(at: folder.storeURL(), to: folder.url.appendingPathComponent("moved"))
        try FileManager.default.createSymbolicLink(at: folder.storeURL(), withDestinationURL: outside)

        try? store.removeAll()
        _ = try? store.removeExpired()
        store.flush()

        #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent(name).path))
        #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent(".strata-tmp-1").path))
        #expect(!FileManager.default.fileExists(atPath: outside.appendingPathComponent(".strata-index").path))
    }

    /// Keys that look like paths (`..`, slashes, NUL, 100,000 characters): each is one file inside the folder.
    @Test func hostileKeysStayInside() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let keys = ["..", "../../etc/passwd", "/etc/passwd", "a\u{0}b", String(repeating: "k", count: 100_000), "."]
        for key in keys { try store.setValue(Data(key.utf8.prefix(10)), forKey: key) }
        for key in keys { #expect(store.value(forKey: key) == Data(key.utf8.prefix(10))) }
        #expect(try folder.entryFiles().count == keys.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["store"])
    }

    /// A pipe handed to `move(fileAt:)` neither hangs nor is taken in: a typed error.
    @Test(.timeLimit(.minutes(1)))
    func movingAFIFOIsATypedError() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let fifo = folder.url.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        #expect(throws: StrataError.self) { try store.move(fileAt: fifo, forKey: "k") }
        #expect(store.count == 0)
    }

    /// A link handed to `move(fileAt:)` is refused: neither the link nor the file it points to, outside the store, is
    /// taken in, written to or removed.
    @Test func movingALinkIsRefusedAndWhatItPointsToIsUntouched() throws {
        // Given a file outside the store and a link to it
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let outside = folder.url.appendingPathComponent("secret")
        try Data("outside".utf8).write(to: outside)
        let written = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: written], ofItemAtPath: outside.path)
        let link = folder.url.appendingPathComponent("download")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)

        // When the link is moved into the store
        let error = #expect(throws: StrataError.self) { try store.move(fileAt: link, forKey: "k") }

        // Then the move fails with io, nothing is stored, and the link and its file are as they were, never written
        #expect(error?.code == .io)
        #expect(store.count == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == outside.path)
        #expect(try Data(contentsOf: outside) == Data("outside".utf8))
        let modified = try FileManager.default.attributesOfItem(atPath: outside.path)[.modificationDate] as? Date
        #expect(modified == written)
    }
}
