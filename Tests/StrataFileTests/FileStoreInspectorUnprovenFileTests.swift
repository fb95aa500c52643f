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

/// An inspector's removals by name (`strata verify --repair`, `prune`, `clear`) delete a file at an entry name only
/// when its sealed trailer proves the store wrote it; a user's file there is set aside, byte for byte.
struct FileStoreInspectorUnprovenFileTests {
    /// A closed store holding `a`, then a user's file put in place of `a`'s entry file: its name and contents.
    private func storeWithAUsersFileAtAnEntryName(_ folder: TemporaryFolder) throws -> (name: String, data: Data) {
        do {
            let store = try folder.makeStore()
            try store.setValue(.pattern(100), forKey: "a")
            try store.setValue(.pattern(80), forKey: "b")
        }
        let name = try folder.entryFiles()[0]
        let data = Data("the user's notes, not an entry\n".utf8) + Data.pattern(300)
        try data.write(to: folder.storeURL().appendingPathComponent(name))
        return (name, data)
    }

    /// A closed store holding `a` only: the name of its entry file.
    private func storeWithOneEntry(_ folder: TemporaryFolder) throws -> String {
        let store = try folder.makeStore()
        try store.setValue(.pattern(100), forKey: "a")
        return try #require(try folder.entryFiles().first)
    }

    /// `remove(fileNames:)` of a name listed while it held the store's file, now a user's file (the file swapped
    /// between `prune`'s listing and its removal, or `verify --repair` of a file that proves nothing): set aside.
    @Test func removingByNameSetsAsideAFileWithoutASealedTrailer() throws {
        let folder = try TemporaryFolder()
        let (name, data) = try storeWithAUsersFileAtAnEntryName(folder)
        let inspector = try FileStoreInspector(folder: folder.storeURL())
        let other = try #require(inspector.entries().first { $0.fileName != name }?.fileName)

        #expect(try inspector.remove(fileNames: [name, other]) == 2)

        #expect(try folder.survivor(of: name) == data)
        #expect(try folder.entryFiles().isEmpty, "the sealed entry is removed, the user's file is not at its name")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
                .filter { $0.hasPrefix(other) }.isEmpty
        )
    }

    /// `removeAllEntries()` (`strata clear`) sets a user's file at an entry name aside and leaves it there.
    @Test func removingAllEntriesSetsAsideAFileWithoutASealedTrailer() throws {
        let folder = try TemporaryFolder()
        let (name, data) = try storeWithAUsersFileAtAnEntryName(folder)

        #expect(try FileStoreInspector(folder: folder.storeURL()).removeAllEntries() == 2)

        #expect(try folder.survivor(of: name) == data)
        #expect(try folder.entryFiles().isEmpty)
        #expect(try folder.makeStore().count == 0)
    }

    /// `removeAllEntries()` (`strata clear`) leaves a pipe the store set aside: only links and sealed files set aside
    /// are deleted.
    @Test(.timeLimit(.minutes(1)))
    func removingAllEntriesLeavesAPipeTheStoreSetAside() throws {
        // Given a pipe at an entry's name, set aside by the store's open
        let folder = try TemporaryFolder()
        let name = try storeWithOneEntry(folder)
        let path = folder.storeURL().appendingPathComponent(name).path
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o644) == 0)
        _ = try folder.makeStore()
        let aside = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
                .first { $0.hasPrefix(name + ".damaged-") }
        )

        // When every entry is removed
        try FileStoreInspector(folder: folder.storeURL()).removeAllEntries()

        // Then the pipe is still there, set aside
        var status = stat()
        #expect(lstat(folder.storeURL().appendingPathComponent(aside).path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFIFO)
    }

    /// A name that is not UTF-8 is never acted on: a link so named beside a user's file whose name is its
    /// replacement-character spelling leaves that file as it was.
    @Test func aNameThatIsNotUTF8NeverLeadsToAnotherFile() throws {
        let folder = try TemporaryFolder()
        let name = try storeWithOneEntry(folder)
        let store = folder.storeURL().path
        // A link named `<entry>.damaged-\xFF` (invalid UTF-8), and the user's file `<entry>.damaged-\u{FFFD}`
        var linkName = Array((store + "/" + name + ".damaged-").utf8CString.dropLast())
        linkName.append(CChar(bitPattern: 0xFF))
        linkName.append(0)
        guard symlink("/nonexistent", linkName) == 0 else {
            // A file system that refuses such names (APFS: `EILSEQ`) cannot hold the case.
            #expect(errno == EILSEQ)
            return
        }
        let usersFile = URL(fileURLWithPath: store + "/" + name + ".damaged-\u{FFFD}")
        try Data("the user's file".utf8).write(to: usersFile)

        try FileStoreInspector(folder: folder.storeURL()).removeAllEntries()

        #expect(try Data(contentsOf: usersFile) == Data("the user's file".utf8))
    }
}
