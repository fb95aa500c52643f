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

/// The stamp (device, inode, size, modification time) the store keeps of each entry file it wrote or read at open:
/// the proof that a file at an entry's name is still the store's, for removals and for a put over the entry.
struct FileDataSourceStampProofTests {
    /// A user's file written over an entry's file while the store is open, then a put of that key: the put sets
    /// the user's file aside (reported) rather than renaming over it, and holds its own value.
    @Test func aPutOverAnEntryWhoseFileWasReplacedSetsTheUsersFileAside() throws {
        let folder = try TemporaryFolder()
        let log = DiagnosticsLog()
        let store = try folder.makeStore(diagnostics: log.record)
        try store.setValue(.pattern(100), forKey: "a")
        let name = try #require(try folder.entryFiles().first)
        let users = Data("the user's notes, not an entry\n".utf8)
        try users.write(to: folder.storeURL().appendingPathComponent(name), options: .atomic)

        try store.setValue(.pattern(40), forKey: "a")

        #expect(store.value(forKey: "a") == .pattern(40))
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
            .filter { $0.hasPrefix(name + ".damaged-") }
        try #require(aside.count == 1, "the user's file is gone: \(aside)")
        #expect(try Data(contentsOf: folder.storeURL().appendingPathComponent(aside[0])) == users)
        #expect(log.messages.contains { $0.contains("set aside as \(name).damaged-") })
    }

    /// A user's file as long as the entry's file written over it while the store is open, then a renewal of that
    /// key, in place (a trailer as long) or by a new file (a shorter one): the renewal neither writes into the
    /// user's file nor renames over it; the file is set aside (reported) and the entry is gone. Before, the new
    /// trailer was written into the user's file, or the user's bytes were copied into a new entry renamed over it.
    @Test(arguments: [false, true])
    func aRenewalOverAnEntryWhoseFileWasReplacedSetsTheUsersFileAside(shorter: Bool) throws {
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        let log = DiagnosticsLog()
        let store = try folder.makeStore(clock: clock, diagnostics: log.record)
        let eTag = shorter ? String(repeating: "e", count: 200) : "e1"
        try store.setValue(.pattern(100), forKey: "a", metadata: EntryMetadata(eTag: eTag))
        let name = try #require(try folder.entryFiles().first)
        let url = folder.storeURL().appendingPathComponent(name)
        let users = Data(repeating: UInt8(ascii: "u"), count: try Data(contentsOf: url).count)
        try users.write(to: url, options: .atomic)
        clock.advance(by: .seconds(1))

        #expect(throws: StrataError.self) {
            try store.renewMetadata(EntryMetadata(eTag: shorter ? nil : "e2"), forKey: "a")
        }

        #expect(try folder.survivor(of: name) == users)
        #expect(store.value(forKey: "a") == nil)
        #expect(log.messages.contains { $0.contains("set aside as \(name).damaged-") })
    }

    /// A copy of the entry's own file restored over it (whole, its trailer sealed, but another file) is not the file
    /// the store wrote: a renewal sets it aside. Before, the renewal's failure path removed it as the store's own.
    @Test func aRenewalOverARestoredCopyOfTheEntrySetsTheCopyAside() throws {
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        let log = DiagnosticsLog()
        let store = try folder.makeStore(clock: clock, diagnostics: log.record)
        try store.setValue(.pattern(100), forKey: "a", metadata: EntryMetadata(eTag: "e1"))
        let name = try #require(try folder.entryFiles().first)
        let url = folder.storeURL().appendingPathComponent(name)
        let copy = try Data(contentsOf: url)
        try copy.write(to: url, options: .atomic)
        clock.advance(by: .seconds(1))

        #expect(throws: StrataError.self) { try store.renewMetadata(EntryMetadata(eTag: "e2"), forKey: "a") }

        #expect(try folder.survivor(of: name) == copy)
        #expect(log.messages.contains { $0.contains("set aside as \(name).damaged-") })
    }

    /// A put over an entry the store renewed, in place (a longer trailer) and by a new file (a shorter one), finds
    /// its own file there: nothing reported, nothing set aside.
    @Test(arguments: [true, false])
    func aRenewalKeepsTheProofOfItsFile(shorter: Bool) throws {
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        let log = DiagnosticsLog()
        let store = try folder.makeStore(clock: clock, diagnostics: log.record)
        let long = String(repeating: "e", count: 200)
        try store.setValue(.pattern(100), forKey: "a", metadata: EntryMetadata(eTag: shorter ? long : nil))
        clock.advance(by: .seconds(1))
        #expect(try store.renewMetadata(EntryMetadata(eTag: shorter ? nil : long), forKey: "a"))

        try store.setValue(.pattern(30), forKey: "a")
        #expect(try store.removeValue(forKey: "a"))

        #expect(log.messages.isEmpty)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path).allSatisfy {
                !$0.contains(".damaged-")
            }
        )
    }

    /// The stamp is the proof: an entry file whose trailer was overwritten in place, its size and modification time
    /// then put back, is removed without being read (the store wrote that inode and nothing it can see changed),
    /// both for a file the store wrote and for one it found at open. Without the stamp it would be set aside as
    /// a file without a sealed trailer.
    @Test(arguments: [false, true])
    func anUnchangedStampProvesTheFileWithoutReadingIt(reopened: Bool) throws {
        let folder = try TemporaryFolder()
        let log = DiagnosticsLog()
        var store: FileDataSource? = try folder.makeStore(diagnostics: log.record)
        try store?.setValue(.pattern(100), forKey: "a")
        if reopened {
            store = nil
            store = try folder.makeStore(diagnostics: log.record)
        }
        let name = try #require(try folder.entryFiles().first)
        try overwriteKeepingStamp(folder.storeURL().appendingPathComponent(name).path)

        #expect(try store?.removeValue(forKey: "a") == true)

        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path).filter { $0.contains(name) }
                .isEmpty
        )
        #expect(log.messages.isEmpty)
    }

    /// Overwrites the last 16 bytes of `path` with zeros in place and puts its modification time back.
    private func overwriteKeepingStamp(_ path: String) throws {
        var before = stat()
        try #require(lstat(path, &before) == 0)
        let descriptor = open(path, O_WRONLY)
        try #require(descriptor >= 0)
        let zeros = [UInt8](repeating: 0, count: 16)
        let written = zeros.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, 16, off_t(before.st_size) - 16) }
        close(descriptor)
        try #require(written == 16)
        #if canImport(Darwin)
            var times = [before.st_atimespec, before.st_mtimespec]
        #else
            var times = [before.st_atim, before.st_mtim]
        #endif
        try #require(utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0)
    }
}
