import Foundation
import Strata
import StrataFile
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Disk faults: the store's folder replaced or removed, an entry's file replaced by a folder, a full disk and a
/// read-only disk. Each is a typed `StrataError` (`.io`), nothing already stored is lost, and a memory cache in
/// front keeps answering.
struct ReliabilityFileFaultTests {
    @Test func aFileWhereTheStoreFolderMustBeIsAnIOError() throws {
        let folder = try TemporaryFolder()
        try Data("not a folder".utf8).write(to: folder.storeURL())

        #expect { _ = try folder.makeStore() } throws: { ($0 as? StrataError)?.code == .io }
        #expect(try Data(contentsOf: folder.storeURL()) == Data("not a folder".utf8))
    }

    @Test func aFolderWhereAnEntryFileMustBeIsAMissSetAsideAndNeverDeleted() throws {
        // Given two entries, and the file of one replaced by a non-empty folder while the store is open
        let folder = try TemporaryFolder()
        let log = DiagnosticsLog()
        var store: FileDataSource? = try folder.makeStore(diagnostics: log.record)
        try store?.setValue(.pattern(100), forKey: "victim")
        let victimFile = try #require(try folder.entryFiles().first)
        try store?.setValue(.pattern(200, seed: 2), forKey: "other")
        let path = folder.storeURL().appendingPathComponent(victimFile)
        try FileManager.default.removeItem(at: path)
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: path.appendingPathComponent("inside"))

        // When the key is read
        let value = store?.value(forKey: "victim")

        // Then it is a miss, reported and counted, the folder is set aside with its contents, and the rest works
        #expect(value == nil)
        #expect(store?.corruptEntriesRemoved == 1)
        #expect(log.messages.count == 1)
        #expect(store?.value(forKey: "other") == .pattern(200, seed: 2))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
        let aside = try #require(names.first { $0.hasPrefix(victimFile + ".damaged-") })
        #expect(try Data(contentsOf: folder.storeURL().appendingPathComponent(aside + "/inside")) == Data("x".utf8))
        try store?.setValue(.pattern(300), forKey: "victim")
        #expect(store?.value(forKey: "victim") == .pattern(300))

        // And a folder found at an entry's name when the store opens is set aside too, and the store opens
        try FileManager.default.createDirectory(
            at: folder.storeURL().appendingPathComponent(String(repeating: "ab", count: 16) + ".strata"),
            withIntermediateDirectories: false
        )
        store = nil
        let reopened = try folder.makeStore()
        #expect(reopened.corruptEntriesRemoved == 1)
        #expect(reopened.value(forKey: "other") == .pattern(200, seed: 2))
        #expect(reopened.value(forKey: "victim") == .pattern(300))
        #expect(try folder.entryFiles().count == 2)
        let planted = String(repeating: "ab", count: 16) + ".strata"
        let namesAfter = try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
        #expect(namesAfter.contains { $0.hasPrefix(planted + ".damaged-") }, "the planted folder was not set aside")
    }

    @Test func aDeletedStoreFolderIsAnIOErrorWhileTheMemoryCacheKeepsServing() async throws {
        // Given a file store behind a memory cache, holding two values
        let folder = try TemporaryFolder()
        let file = try folder.makeStore()
        let memory = MemoryDataSource<Data>(countLimit: 100)
        let repository = CacheRepository(main: file, cache: memory)
        _ = try await repository.put(.pattern(10), in: KeyQuery("a"), operation: .default)
        _ = try await repository.put(.pattern(20), in: KeyQuery("b"), operation: .default)

        // When the store's folder is deleted behind its back
        try FileManager.default.removeItem(at: folder.storeURL())

        // Then writes are typed I/O errors, and reads are answered from memory
        await #expect { _ = try await repository.put(.pattern(30), in: KeyQuery("c"), operation: .default) } throws: {
            ($0 as? StrataError)?.code == .io
        }
        #expect(try await repository.get(KeyQuery("a"), operation: .cacheSync) == .pattern(10))
        #expect(try await repository.get(KeyQuery("b"), operation: .default) == .pattern(20))
        #expect(memory.value(forKey: "c") == nil)
        // And a write that fails on main leaves the cached value as it was
        await #expect(throws: StrataError.self) {
            _ = try await repository.put(.pattern(99), in: KeyQuery("a"), operation: .default)
        }
        #expect(try await repository.get(KeyQuery("a"), operation: .cacheSync) == .pattern(10))
    }

    @Test(.enabled(if: TemporaryMount.isAvailable, "needs root and tmpfs (mount(2))"))
    func aFullDiskIsAnIOErrorAndKeepsEveryStoredEntry() throws {
        // Given a store on a 1 MiB tmpfs
        let mount = try TemporaryMount(size: "1m")
        defer { mount.unmount() }
        let configuration = FileDataSource.Configuration(location: .url(mount.url), identifier: "full")
        var stored: [String: Data] = [:]
        do {
            let store = try FileDataSource(configuration: configuration)

            // When 64 KiB entries are written until the disk is full
            var failure: (any Error)?
            for index in 0..<64 {
                let data = Data.pattern(64 * 1024, seed: UInt8(index))
                do {
                    try store.setValue(data, forKey: "k\(index)")
                    stored["k\(index)"] = data
                } catch {
                    failure = error
                    break
                }
            }

            // Then the failure is a typed I/O error, and every entry stored before it is whole
            #expect((failure as? StrataError)?.code == .io, "\(String(describing: failure))")
            #expect(stored.count > 4)
            for (key, data) in stored { #expect(store.value(forKey: key) == data, "\(key)") }
            #expect(store.totalSize == stored.values.reduce(0) { $0 + $1.count })
            let storeFolder = mount.url.appendingPathComponent("full")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: storeFolder.path)
                .filter { !$0.hasSuffix(".strata") && !$0.hasPrefix(".strata-") }
            #expect(leftovers.isEmpty, "temporary files left behind: \(leftovers)")
        }

        // And after a reopen (the journal as the full disk left it) too
        let store = try FileDataSource(configuration: configuration)
        for (key, data) in stored { #expect(store.value(forKey: key) == data, "\(key) after a reopen") }
        #expect(store.corruptEntriesRemoved == 0)
        // Freeing space makes the store writable again
        _ = try store.removeValue(forKey: "k0")
        try store.setValue(.pattern(10), forKey: "after")
        #expect(store.value(forKey: "after") == .pattern(10))
    }

    @Test(.enabled(if: TemporaryMount.isAvailable, "needs root and tmpfs (mount(2))"))
    func aRenewalThatGrowsOnAFullDiskKeepsTheEntry() throws {
        // Given an entry whose file fills most of one page, on a 1 MiB tmpfs then filled to the last byte
        let mount = try TemporaryMount(size: "1m")
        defer { mount.unmount() }
        let store = try FileDataSource(configuration: .init(location: .url(mount.url), identifier: "full"))
        let data = Data.pattern(3_900)
        try store.setValue(data, forKey: "k", options: .init(eTag: "\"short\""))
        let filler = mount.url.appendingPathComponent("filler")
        #expect(FileManager.default.createFile(atPath: filler.path, contents: nil))
        let handle = try FileHandle(forWritingTo: filler)
        while (try? handle.write(contentsOf: Data(count: 4_096))) != nil {}
        try? handle.close()

        // When it is renewed with an ETag of 1,000 bytes (its trailer then needs a second page)
        let renewal = #expect(throws: StrataError.self) {
            try store.renewMetadata(EntryMetadata(eTag: "\"" + String(repeating: "e", count: 998) + "\""), forKey: "k")
        }

        // Then the renewal fails as an I/O error and the entry stays, whole, with its metadata, its file still the
        // store's own
        #expect(renewal?.code == .io, "\(String(describing: renewal))")
        #expect(store.value(forKey: "k") == data)
        #expect(store.info(forKey: "k")?.eTag == "\"short\"")
        #expect(store.corruptEntriesRemoved == 0)
        try FileManager.default.removeItem(at: filler)
        try store.setValue(.pattern(10), forKey: "after")
        #expect(try store.removeValue(forKey: "k"), "the entry's file is still the store's own")
    }

    @Test(.enabled(if: TemporaryMount.isAvailable, "needs root and tmpfs (mount(2))"))
    func anOpenStoreKeepsItsDiskFromBecomingReadOnlyAndADroppedOneDoesNot() throws {
        // Given an open store on a disk of its own
        let mount = try TemporaryMount(size: "1m")
        defer { mount.unmount() }
        let configuration = FileDataSource.Configuration(location: .url(mount.url), identifier: "held")
        do {
            let store = try FileDataSource(configuration: configuration)
            try store.setValue(.pattern(100), forKey: "a")

            // When the disk is remounted read-only while it is open, Then the remount is refused, naming the lock
            // file the store holds for writing
            #expect { try mount.remount(readOnly: true) } throws: { error in
                (error as? TemporaryMount.HeldFiles)?.paths.contains { $0.hasSuffix("/held/.strata-lock") } == true
            }
            #expect(store.value(forKey: "a") == .pattern(100))
        }

        // And once the store is dropped, nothing of it is held open: the remount succeeds
        try mount.remount(readOnly: true)
    }

    @Test(.enabled(if: TemporaryMount.isAvailable, "needs root and tmpfs (mount(2))"))
    func aReadOnlyDiskIsAnIOErrorAndKeepsEveryStoredEntry() throws {
        // Given entries stored on a disk that then becomes read-only (root ignores permission bits, a
        // read-only mount it cannot; Linux refuses to remount while a store holds its lock file open for writing,
        // so the store is closed first)
        let mount = try TemporaryMount(size: "1m")
        defer { mount.unmount() }
        let configuration = FileDataSource.Configuration(location: .url(mount.url), identifier: "ro")
        do {
            let store = try FileDataSource(configuration: configuration)
            try store.setValue(.pattern(1_000), forKey: "a")
            try store.setValue(.pattern(2_000), forKey: "b")
        }
        try mount.remount(readOnly: true)

        // When / Then opening the store is a typed I/O error that names the problem
        #expect { _ = try FileDataSource(configuration: configuration) } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .io && (error.underlying as? POSIXError)?.code == .EROFS
        }

        // And once the disk is writable again every entry is there
        try mount.remount(readOnly: false)
        let store = try FileDataSource(configuration: configuration)
        #expect(store.value(forKey: "a") == .pattern(1_000))
        #expect(store.value(forKey: "b") == .pattern(2_000))
        #expect(store.corruptEntriesRemoved == 0)
    }
}
