import Foundation
import Strata
import StrataFile
import StrataTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Links, folders and pipes planted in a live store's folder, and the folder itself swapped for a link: the store
/// never writes, reads or removes anything outside its folder, and what it did not write is never deleted.
struct FileDataSourceHostileFolderTests {
    /// A folder outside the store with one file (the target a planted link points to), and its bytes.
    private struct Outside {
        let url: URL
        let target: URL
        let bytes = Data("the user's own file, not the store's".utf8)

        init(_ folder: TemporaryFolder) throws {
            url = folder.url.appendingPathComponent("outside", isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            target = url.appendingPathComponent("target")
            try bytes.write(to: target)
        }

        /// Checks the target is unchanged and nothing was created beside it (except `allowed`).
        func expectUntouched(allowing allowed: Set<String> = [], sourceLocation: SourceLocation = #_sourceLocation)
            throws
        {
            #expect(try Data(contentsOf: target) == bytes, sourceLocation: sourceLocation)
            let names = Set(try FileManager.default.contentsOfDirectory(atPath: url.path))
            #expect(names == Set(["target"]).union(allowed), sourceLocation: sourceLocation)
        }
    }

    /// The entry file name of `key` (written once to find out, then removed).
    private func entryFileName(_ key: String, in folder: TemporaryFolder, store: FileDataSource) throws -> String {
        let before = Set(try folder.entryFiles())
        try store.setValue(Data("probe".utf8), forKey: key)
        let name = try #require(Set(try folder.entryFiles()).subtracting(before).first)
        try store.removeValue(forKey: key)
        return name
    }

    private func plantLink(_ name: String, in folder: TemporaryFolder, to destination: URL) throws {
        try FileManager.default.createSymbolicLink(
            at: folder.storeURL().appendingPathComponent(name),
            withDestinationURL: destination
        )
    }

    @Test func linksPlantedAtTheStoresNamesAreNeverWrittenThrough() throws {
        // Given a live store, and links to a file outside (and to a missing file outside) at the names the store
        // used to write through: the fixed temporary names, the journal, an entry's name
        let folder = try TemporaryFolder()
        let outside = try Outside(folder)
        let store = try folder.makeStore()
        let entryName = try entryFileName("k", in: folder, store: store)
        let missing = outside.url.appendingPathComponent("created")
        for sequence in 0..<64 {
            try plantLink(".strata-tmp-\(sequence)", in: folder, to: outside.target)
        }
        try plantLink(".strata-tmp-journal", in: folder, to: missing)
        try plantLink(".strata-index", in: folder, to: outside.target)
        try plantLink(entryName, in: folder, to: outside.target)

        // When the store puts, flushes, removes and closes
        for index in 0..<20 { try store.setValue(.pattern(100 + index), forKey: "key \(index)") }
        store.flush()
        try store.setValue(Data("mine".utf8), forKey: "k")
        #expect(store.value(forKey: "k") == Data("mine".utf8))
        try store.removeValue(forKey: "k")
        try store.removeExpired()
        try store.removeAll()

        // Then the target is unchanged, nothing was created outside, and the entry's link is gone (replaced)
        try outside.expectUntouched()
        let status = try FileManager.default.attributesOfItem(
            atPath: folder.storeURL().appendingPathComponent(".strata-index").path
        )
        #expect(status[.type] as? FileAttributeType == .typeRegular)
        #expect(!FileManager.default.fileExists(atPath: folder.storeURL().appendingPathComponent(entryName).path))
    }

    @Test func aLinkPlantedAtTheJournalsNameIsReplacedWhenTheStoreCloses() throws {
        let folder = try TemporaryFolder()
        let outside = try Outside(folder)
        do {
            let store = try folder.makeStore()
            try store.setValue(.pattern(10), forKey: "a")
            _ = store.value(forKey: "a")
            try plantLink(".strata-index", in: folder, to: outside.target)
        }

        try outside.expectUntouched()
        let journal = try FileManager.default.attributesOfItem(
            atPath: folder.storeURL().appendingPathComponent(".strata-index").path
        )
        #expect(journal[.type] as? FileAttributeType == .typeRegular, "the close left the link in place")
        let reopened = try folder.makeStore()
        #expect(reopened.value(forKey: "a") == .pattern(10))
    }

    @Test func theFolderRenamedAndReplacedByALinkAfterOpenDoesNotRedirectWrites() throws {
        // Given a live store whose folder is then renamed, and a link to another folder put in its place
        let folder = try TemporaryFolder()
        let outside = try Outside(folder)
        let store = try folder.makeStore()
        try store.setValue(.pattern(10), forKey: "before")
        let moved = folder.url.appendingPathComponent("moved", isDirectory: true)
        try FileManager.default.moveItem(at: folder.storeURL(), to: moved)
        try FileManager.default.createSymbolicLink(at: folder.storeURL(), withDestinationURL: outside.url)

        // When the store writes, reads, flushes and removes
        try store.setValue(.pattern(20), forKey: "after")
        #expect(store.value(forKey: "before") == .pattern(10))
        #expect(store.value(forKey: "after") == .pattern(20))
        store.flush()
        try store.removeValue(forKey: "before")

        // Then everything happened in the folder the store opened, nothing in the link's target
        try outside.expectUntouched()
        let names = try FileManager.default.contentsOfDirectory(atPath: moved.path)
        #expect(names.filter { $0.hasSuffix(".strata") }.count == 1)
        #expect(names.contains(".strata-index"))
    }

    @Test func aLinkInPlaceOfTheStoresFolderIsRefused() throws {
        let folder = try TemporaryFolder()
        let outside = try Outside(folder)
        try FileManager.default.createSymbolicLink(at: folder.storeURL(), withDestinationURL: outside.url)

        #expect { _ = try folder.makeStore() } throws: { ($0 as? StrataError)?.code == .io }
        try outside.expectUntouched()
    }

    @Test func aFolderMarkedAsAnotherKindOfStoreIsRefused() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.storeURL(), withIntermediateDirectories: false)
        let marker = folder.storeURL().appendingPathComponent(".strata-store")
        try Data("strata-store 1 json\n".utf8).write(to: marker)

        #expect { _ = try folder.makeStore() } throws: { ($0 as? StrataError)?.code == .invalidArgument }
        #expect(try Data(contentsOf: marker) == Data("strata-store 1 json\n".utf8))
        #expect(!FileManager.default.fileExists(atPath: folder.storeURL().appendingPathComponent(".strata-lock").path))
    }

    @Test func aNewStoreWritesItsMarker() throws {
        let folder = try TemporaryFolder()
        _ = try folder.makeStore()

        let marker = try Data(contentsOf: folder.storeURL().appendingPathComponent(".strata-store"))
        #expect(marker == Data("strata-store 1 file\n".utf8))
    }

    // MARK: - Links are damage

    /// A store with two entries, closed; `victim`'s file copied to `outside/copy` (a valid entry elsewhere).
    private func storeWithVictim(_ folder: TemporaryFolder, outside: Outside) throws -> (name: String, copy: URL) {
        let store = try folder.makeStore()
        try store.setValue(.pattern(2_000, seed: 3), forKey: "other")
        let name = try entryFileName("victim", in: folder, store: store)
        try store.setValue(.pattern(1_000), forKey: "victim")
        let copy = outside.url.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: folder.storeURL().appendingPathComponent(name), to: copy)
        return (name, copy)
    }

    @Test func aLinkInPlaceOfAnEntryFoundAtOpenIsRemovedNeverServed() throws {
        // Given a closed store whose entry file was replaced by a link to a copy of itself outside the folder
        let folder = try TemporaryFolder()
        let outside = try Outside(folder)
        let (name, copy) = try storeWithVictim(folder, outside: outside)
        let copyBytes = try Data(contentsOf: copy)
        let path = folder.storeURL().appendingPathComponent(name)
        try FileManager.default.removeItem(at: path)
        try FileManager.default.createSymbolicLink(at: path, withDestinationURL: copy)

        // When the store opens and the key is read
        let log = DiagnosticsLog()
        let store = try folder.makeStore(diagnostics: log.record)

        // Then the link is reported and removed, its target kept, and the key is a miss
        #expect(store.corruptEntriesRemoved == 1)
        #expect(log.messages.count == 1)
        #expect(log.messages.first?.contains("symbolic link") == true)
        #expect(store.value(forKey: "victim") == nil)
        #expect(store.value(forKey: "other") == .pattern(2_000, seed: 3))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path.path)) == nil)
        #expect(!FileManager.default.fileExists(atPath: path.path))
        #expect(try Data(contentsOf: copy) == copyBytes)
        try outside.expectUntouched(allowing: ["copy"])
    }

    @Test func aLinkInPlaceOfAnEntryWhileOpenIsAMissAndOnlyTheLinkIsRemoved() throws {
        // Given a live store whose entry file is replaced by a link to a copy of itself outside the folder
        let folder = try TemporaryFolder()
        let outside = try Outside(folder)
        let log = DiagnosticsLog()
        let store = try folder.makeStore(diagnostics: log.record)
        try store.setValue(.pattern(2_000, seed: 3), forKey: "other")
        let name = try entryFileName("victim", in: folder, store: store)
        try store.setValue(.pattern(1_000), forKey: "victim")
        let path = folder.storeURL().appendingPathComponent(name)
        let copy = outside.url.appendingPathComponent("copy")
        try FileManager.default.moveItem(at: path, to: copy)
        let copyBytes = try Data(contentsOf: copy)
        try FileManager.default.createSymbolicLink(at: path, withDestinationURL: copy)

        // When the key is read
        let value = store.value(forKey: "victim")

        // Then it is a miss, reported and counted, the link is gone and its target intact
        #expect(value == nil)
        #expect(store.corruptEntriesRemoved == 1)
        #expect(log.messages.count == 1)
        #expect(store.info(forKey: "victim") == nil)
        #expect(!FileManager.default.fileExists(atPath: path.path))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path.path)) == nil)
        #expect(try Data(contentsOf: copy) == copyBytes)
        #expect(store.value(forKey: "other") == .pattern(2_000, seed: 3))
        try outside.expectUntouched(allowing: ["copy"])
    }

    @Test(.timeLimit(.minutes(1)))
    func aPipeInPlaceOfAnEntryNeitherHangsNorIsDeleted() throws {
        // Given a live store whose entry file is replaced by a named pipe nobody writes to
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        let name = try entryFileName("victim", in: folder, store: store)
        try store.setValue(.pattern(100), forKey: "victim")
        let path = folder.storeURL().appendingPathComponent(name)
        try FileManager.default.removeItem(at: path)
        #expect(mkfifo(path.path, 0o644) == 0)

        // When the key is read
        let value = store.value(forKey: "victim")

        // Then the read returns a miss at once, and the pipe is set aside, not deleted
        #expect(value == nil)
        #expect(store.corruptEntriesRemoved == 1)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
        #expect(names.contains { $0.hasPrefix(name + ".damaged-") })
        #expect(!names.contains(name))
    }

    @Test(.timeLimit(.minutes(1)))
    func aPipeOrAFolderAtTheJournalsNameNeitherHangsTheOpenNorStopsTheJournal() throws {
        for planted in ["pipe", "folder"] {
            let folder = try TemporaryFolder()
            do {
                let store = try folder.makeStore()
                try store.setValue(.pattern(10), forKey: "a")
            }
            let journal = folder.storeURL().appendingPathComponent(".strata-index")
            try FileManager.default.removeItem(at: journal)
            if planted == "pipe" {
                #expect(mkfifo(journal.path, 0o644) == 0)
            } else {
                try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: false)
            }

            let log = DiagnosticsLog()
            let store = try folder.makeStore(diagnostics: log.record)
            #expect(store.value(forKey: "a") == .pattern(10), "\(planted)")
            store.flush()

            let names = try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
            #expect(names.contains { $0.hasPrefix(".strata-index.damaged-") }, "\(planted)")
            let type = try FileManager.default.attributesOfItem(atPath: journal.path)[.type] as? FileAttributeType
            #expect(type == .typeRegular, "\(planted)")
            #expect(log.messages.count == 1, "\(planted)")
        }
    }
}
