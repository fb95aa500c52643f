import Foundation
import Strata
import StrataStorage
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataJSONFile

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files the store did not make, at names it uses or beside them: a user's files in a folder the store adopts,
/// hard links to files elsewhere, a terabyte-long sparse file, a pipe. Nothing outside the store is written or
/// removed, and none of them crashes or hangs the process.
struct JSONFileDataSourceForeignFileTests {
    // MARK: - Foreign files in a folder the store adopts

    /// A careless user points a JSON store (or a CacheManager) at an existing folder of theirs. The store adopts
    /// it; its sweep of leftover temporary files removes only names of the form it makes, never the user's
    /// `.tmp-draft.txt`.
    @Test func openingAnUnmarkedFolderNeverDeletesTheUsersFiles() async throws {
        try await withTemporaryFolder { folder in
            let mine = folder.appendingPathComponent(".tmp-draft.txt")
            try Data("the user's draft".utf8).write(to: mine)
            try Data("notes".utf8).write(to: folder.appendingPathComponent("notes.txt"))

            let store = try Fixture(folder: folder).open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")

            #expect(FileManager.default.fileExists(atPath: mine.path), "the user's .tmp- file was deleted")
        }
    }

    // MARK: - Hard links

    /// A hard link to a file outside the store, planted at `index.journal` while the store was closed: the journal
    /// is replaced with one written from the index (by rename), so no put is ever appended to the outside file.
    @Test func aHardLinkAtTheIndexJournalIsNeverWrittenThrough() async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("store")
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open()
                try store.setValue(Item(name: "a", number: 1), forKey: "a")
            }
            // The victim: a file outside the store, here a copy of a valid journal (an empty file works the same).
            let journal = folder.appendingPathComponent("index.journal")
            let victim = parent.appendingPathComponent("victim.log")
            try FileManager.default.copyItem(at: journal, to: victim)
            let before = try Data(contentsOf: victim)
            try FileManager.default.removeItem(at: journal)
            #expect(link(victim.path, journal.path) == 0)

            let store = try fixture.open()
            try store.setValue(Item(name: "b", number: 2), forKey: "b")
            try store.removeValue(forKey: "a")

            #expect(try Data(contentsOf: victim) == before, "the outside file was appended to")
        }
    }

    /// An empty outside file hard-linked at `index.journal` (the most likely victim: a log, a lock file).
    @Test func anEmptyOutsideFileHardLinkedAtTheIndexIsNeverWrittenThrough() async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("store")
            let fixture = Fixture(folder: folder)
            do { _ = try fixture.open() }
            let journal = folder.appendingPathComponent("index.journal")
            let victim = parent.appendingPathComponent("victim.log")
            try Data().write(to: victim)
            try FileManager.default.removeItem(at: journal)
            #expect(link(victim.path, journal.path) == 0)

            let store = try fixture.open()
            try store.setValue(Item(name: "b", number: 2), forKey: "b")

            #expect(try Data(contentsOf: victim).isEmpty, "the outside file was appended to")
        }
    }

    // MARK: - Huge (sparse) files

    /// Makes a sparse file of `size` bytes (no disk used).
    private func makeSparseFile(_ url: URL, size: Int) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(ftruncate(fd, off_t(size)) == 0)
    }

    /// Opens the store at `folder` in a crash writer, a process of its own: `ready` when it opened (it is then
    /// killed), `typed error` when it reported one (exit status 1), `died (status N)` for anything else (a trap).
    private func openInChildProcess(_ folder: URL) async throws -> String {
        let writer = try JSONFileDataSourceCrashTests.writerURL()
        let run = try await onDedicatedThread {
            try JSONFileDataSourceCrashTests.runAndKill(
                writer: writer,
                folder: folder,
                durable: false,
                first: 0,
                acknowledgements: 0
            )
        }
        if run.killed { return "ready" }
        return run.status == 1 ? "typed error" : "died (status \(run.status))"
    }

    /// A 1 TiB sparse `index.journal` (no disk used): refused before any buffer is made for it (`EFBIG`), set aside,
    /// and the index rebuilt; the store opens, in a process of its own so that a crash would not end the suite.
    @Test(.timeLimit(.minutes(2)))
    func aHugeSparseIndexJournalIsATypedErrorOrSetAsideNotACrash() async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("store")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try makeSparseFile(folder.appendingPathComponent("index.journal"), size: 1 << 40)
            let outcome = try await openInChildProcess(folder)
            #expect(outcome == "ready" || outcome.hasPrefix("typed error"), "\(outcome)")
        }
    }

    /// The same with a 1 TiB sparse file at an entry's name, found by the rebuild at open: set aside as damage.
    @Test(.timeLimit(.minutes(2)))
    func aHugeSparseEntryFileIsSetAsideNotACrash() async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("store")
            let shard = folder.appendingPathComponent("entries/ab")
            try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
            try makeSparseFile(
                shard.appendingPathComponent("ab" + String(repeating: "0", count: 30) + ".json"),
                size: 1 << 40
            )
            let outcome = try await openInChildProcess(folder)
            #expect(outcome == "ready" || outcome.hasPrefix("typed error"), "\(outcome)")
        }
    }

    /// A file longer than the limit is refused before it is read (`EFBIG`, which the store treats as damage);
    /// one at the limit is read whole.
    @Test func aFileLongerThanTheLimitIsRefusedBeforeItIsRead() async throws {
        try await withTemporaryFolder { url in
            let folder = try StoreFolder.open(url.path, create: false)
            try Data(count: 100).write(to: url.appendingPathComponent("entry"))

            #expect(try folder.readFile("entry", limit: 100)?.count == 100)
            let refused = #expect(throws: POSIXCallError.self) {
                try folder.readFile("entry", limit: 99)
            }
            #expect(refused?.code == EFBIG)
        }
    }

    // MARK: - Links and special files

    /// `removeAll()` after the entries folder was renamed away and replaced by a link to a folder of the user's.
    @Test func removeAllAfterEntriesSwappedForALinkDeletesNothingOutside() async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("store")
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            let (shard, file) = entryLocation(of: "a")
            let outside = parent.appendingPathComponent("outside")
            try FileManager.default.createDirectory(
                at: outside.appendingPathComponent(shard),
                withIntermediateDirectories: true
            )
            try Data("victim".utf8).write(to: outside.appendingPathComponent(shard + "/" + file))
            try Data("victim".utf8).write(to: outside.appendingPathComponent(".tmp-1"))
            let entries = folder.appendingPathComponent("entries")
            try FileManager.default.moveItem(at: entries, to: parent.appendingPathComponent("moved"))
            try FileManager.default.createSymbolicLink(at: entries, withDestinationURL: outside)

            try? store.removeAll()
            _ = try? store.value(forKey: "a")

            #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent(shard + "/" + file).path))
            #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent(".tmp-1").path))
        }
    }

    /// A hard link to an outside file at an entry's name: a read, a remove and removeAll unlink only the link.
    @Test func aHardLinkAtAnEntryNameLeavesTheOutsideFileIntact() async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("store")
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            let (shard, file) = entryLocation(of: "a")
            let entry = folder.appendingPathComponent("entries/\(shard)/\(file)")
            let victim = parent.appendingPathComponent("victim.txt")
            try Data("victim".utf8).write(to: victim)
            try FileManager.default.removeItem(at: entry)
            #expect(link(victim.path, entry.path) == 0)
            _ = try? store.value(forKey: "a")
            try? store.removeAll()
            #expect(try Data(contentsOf: victim) == Data("victim".utf8))
        }
    }

    /// A FIFO at the lock file's name: the open neither hangs nor deletes it; it is set aside and the store opens.
    @Test(.timeLimit(.minutes(1)))
    func aFIFOAtTheLockFileIsSetAsideNotDeleted() async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("store")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            #expect(mkfifo(folder.appendingPathComponent(".strata-lock").path, 0o644) == 0)

            let store = try Fixture(folder: folder).open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")

            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            let aside = try #require(names.first { $0.hasPrefix(".strata-lock.damaged-") }, "\(names)")
            var status = stat()
            #expect(lstat(folder.appendingPathComponent(aside).path, &status) == 0)
            #expect(status.st_mode & S_IFMT == S_IFIFO, "the pipe itself, moved aside")
        }
    }

    /// A socket at a durable store's `session`: the store opens (rebuilding its index: nothing proves the session
    /// closed) with every entry, never an error at every open.
    @Test(.enabled(if: UnixSocketFile.isAvailable))
    func aSocketAtTheSessionFileIsASessionThatDidNotClose() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            var configuration = fixture.configuration()
            configuration.durability = .durable
            do {
                let store = try JSONFileDataSource(configuration: configuration)
                try store.setValue(Item(name: "a", number: 1), forKey: "a")
            }
            let session = folder.appendingPathComponent("session")
            try? FileManager.default.removeItem(at: session)
            let socket = try UnixSocketFile(at: session.path)
            defer { _ = socket }

            let store = try JSONFileDataSource(configuration: configuration)

            #expect(try store.value(forKey: "a") == Item(name: "a", number: 1))
            // And the socket is moved aside, reported, not replaced
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            let aside = try #require(names.first { $0.hasPrefix("session.corrupt-") })
            var status = stat()
            #expect(lstat(folder.appendingPathComponent(aside).path, &status) == 0)
            #expect(status.st_mode & S_IFMT == S_IFSOCK)
            #expect(store.corruptionCount >= 1)
        }
    }

    /// A FIFO, or a folder holding a user's file (a sync client's), at an indexed entry's name, the key removed
    /// without a read first: what is there is set aside whole, reported, never deleted, and the key is gone. (On
    /// Darwin, whose `unlink` of a folder says `EPERM`, removing over a folder failed as a want of permission, for
    /// ever: the key stayed, and `removeExpired()` stopped at it every time.)
    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func whatIsNotAFileAtAnEntrysNameIsSetAsideByItsRemoval(folderThere: Bool) async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            let (shard, file) = JSONFileStorage.location(of: "a")
            let shardFolder = folder.appendingPathComponent("entries").appendingPathComponent(shard)
            let planted = shardFolder.appendingPathComponent(file)
            try FileManager.default.removeItem(at: planted)
            if folderThere {
                try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: false)
                try Data("theirs".utf8).write(to: planted.appendingPathComponent("note.txt"))
            } else {
                #expect(mkfifo(planted.path, 0o644) == 0)
            }

            #expect(try store.removeValue(forKey: "a"))

            let names = try FileManager.default.contentsOfDirectory(atPath: shardFolder.path)
            let aside = try #require(names.first { $0.hasPrefix(file + ".corrupt-") }, "\(names)")
            #expect(!names.contains(file))
            if folderThere {
                let note = shardFolder.appendingPathComponent(aside).appendingPathComponent("note.txt")
                #expect(try Data(contentsOf: note) == Data("theirs".utf8))
            }
            #expect(store.corruptionCount == 1)
            #expect(try store.value(forKey: "a") == nil)
            #expect(store.sortedKeys().isEmpty)
        }
    }

    /// A FIFO at an entry's name, indexed or not: a put sets it aside and writes the entry, never replaces (deletes) it.
    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func aFIFOAtAnEntrysNameIsSetAsideByAPut(indexed: Bool) async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            try store.setValue(Item(name: "b", number: 2), forKey: "b")
            if indexed { try store.setValue(Item(name: "a", number: 1), forKey: "a") }
            let (shard, file) = JSONFileStorage.location(of: "a")
            let shardFolder = folder.appendingPathComponent("entries").appendingPathComponent(shard)
            try? FileManager.default.removeItem(at: shardFolder.appendingPathComponent(file))
            try FileManager.default.createDirectory(at: shardFolder, withIntermediateDirectories: true)
            #expect(mkfifo(shardFolder.appendingPathComponent(file).path, 0o644) == 0)

            try store.setValue(Item(name: "a", number: 3), forKey: "a")

            let names = try FileManager.default.contentsOfDirectory(atPath: shardFolder.path)
            let aside = try #require(names.first { $0.hasPrefix(file + ".corrupt-") }, "\(names)")
            var status = stat()
            #expect(lstat(shardFolder.appendingPathComponent(aside).path, &status) == 0)
            #expect(status.st_mode & S_IFMT == S_IFIFO, "the pipe itself, moved aside")
            #expect(try store.value(forKey: "a") == Item(name: "a", number: 3))
            #expect(try store.value(forKey: "b") == Item(name: "b", number: 2))
        }
    }
}
