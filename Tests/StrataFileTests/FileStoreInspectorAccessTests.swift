import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

/// `FileStoreInspector(folder:access:)`: read-only looks without changing anything (read-only media included),
/// read-write may remove; both act only on a folder with a file store's marker and never follow a link.
struct FileStoreInspectorAccessTests {
    /// A closed store with two sound entries, one damaged entry, a link at an entry's name (to a copy of an entry
    /// outside) and a folder at an entry's name; no lock file. Returns the outside folder.
    private func damagedStore(_ folder: TemporaryFolder) throws -> URL {
        let outside = folder.url.appendingPathComponent("outside", isDirectory: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        do {
            let store = try folder.makeStore()
            try store.setValue(.pattern(100), forKey: "a")
            try store.setValue(.pattern(200), forKey: "b")
            try store.setValue(.pattern(300), forKey: "damaged")
        }
        let files = try folder.entryFiles()
        let store = folder.storeURL()
        // The damaged one: the last file's data flipped.
        let damagedFile = store.appendingPathComponent(files[2])
        var bytes = try Data(contentsOf: damagedFile)
        bytes[3] ^= 0xFF
        try bytes.write(to: damagedFile)
        try FileManager.default.copyItem(
            at: store.appendingPathComponent(files[0]),
            to: outside.appendingPathComponent("copy")
        )
        try FileManager.default.createSymbolicLink(
            at: store.appendingPathComponent(String(repeating: "1", count: 32) + ".strata"),
            withDestinationURL: outside.appendingPathComponent("copy")
        )
        try FileManager.default.createDirectory(
            at: store.appendingPathComponent(String(repeating: "2", count: 32) + ".strata"),
            withIntermediateDirectories: false
        )
        try FileManager.default.removeItem(at: store.appendingPathComponent(".strata-lock"))
        return outside
    }

    @Test func readOnlyReportsDamageAndChangesNothing() throws {
        let folder = try TemporaryFolder()
        let outside = try damagedStore(folder)
        let before = try snapshot(folder.url)

        let inspector = try FileStoreInspector(folder: folder.storeURL(), access: .readOnly)
        let listed = inspector.entries()
        let verified = inspector.verify()
        #expect(throws: StrataError.self) { try inspector.remove(fileNames: verified.map(\.fileName)) }
        #expect(throws: StrataError.self) { try inspector.removeAllEntries() }

        #expect(listed.count == 5)
        #expect(listed.filter { $0.problem != nil }.count == 2)  // the link and the folder
        #expect(verified.filter { $0.problem != nil }.count == 3)  // and the checksum mismatch
        #expect(verified.contains { $0.problem == "a symbolic link" })
        #expect(verified.contains { $0.problem == "not a regular file" })
        #expect(try snapshot(folder.url) == before)
        #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent("copy").path))
    }

    @Test func readWriteRemovesLinksItselfAndSetsFoldersAside() throws {
        let folder = try TemporaryFolder()
        let outside = try damagedStore(folder)
        let copy = try Data(contentsOf: outside.appendingPathComponent("copy"))

        let inspector = try FileStoreInspector(folder: folder.storeURL(), access: .readWrite)
        let damaged = inspector.verify().filter { $0.problem != nil }
        #expect(try inspector.remove(fileNames: damaged.map(\.fileName)) == 3)

        #expect(try Data(contentsOf: outside.appendingPathComponent("copy")) == copy)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.storeURL().path)
        #expect(names.contains { $0.hasPrefix(String(repeating: "2", count: 32) + ".strata.damaged-") })
        #expect(inspector.verify().count == 2)
        #expect(inspector.verify().allSatisfy { $0.problem == nil })
    }

    @Test func aFolderWithoutAFileStoresMarkerIsNoStore() throws {
        // Given a folder of the user's with a file named like an entry, and one marked as a JSON store
        let folder = try TemporaryFolder()
        let plain = folder.url.appendingPathComponent("plain", isDirectory: true)
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: plain.appendingPathComponent(String(repeating: "a", count: 32) + ".strata"))
        let json = folder.url.appendingPathComponent("json", isDirectory: true)
        try FileManager.default.createDirectory(at: json, withIntermediateDirectories: false)
        try Data("strata-store 1 json\n".utf8).write(to: json.appendingPathComponent(".strata-store"))
        let before = try snapshot(folder.url)

        // Then neither is a file store, in either access, and nothing is created in them
        for candidate in [plain, json] {
            #expect(!FileStoreInspector.isStore(at: candidate))
            for access in [StoreAccess.readOnly, .readWrite] {
                #expect { _ = try FileStoreInspector(folder: candidate, access: access) } throws: {
                    ($0 as? StrataError)?.code == .invalidArgument
                }
            }
        }
        #expect(try snapshot(folder.url) == before)
    }

    @Test func aStoreIsAStoreThroughItsMarkerAndALinkToItIsNot() throws {
        let folder = try TemporaryFolder()
        _ = try folder.makeStore()
        let link = folder.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: folder.storeURL())

        #expect(FileStoreInspector.isStore(at: folder.storeURL()))
        #expect(!FileStoreInspector.isStore(at: link))
        #expect { _ = try FileStoreInspector(folder: link, access: .readOnly) } throws: {
            ($0 as? StrataError)?.code == .invalidArgument
        }
    }

    @Test func anInspectorAndALiveStoreExcludeEachOther() throws {
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            for access in [StoreAccess.readOnly, .readWrite] {
                #expect { _ = try FileStoreInspector(folder: folder.storeURL(), access: access) } throws: {
                    ($0 as? StrataError)?.code == .alreadyInUse
                }
            }
            try store.setValue(.pattern(10), forKey: "still mine")
            #expect(store.value(forKey: "still mine") == .pattern(10))
        }
        for access in [StoreAccess.readOnly, .readWrite] {
            let inspector = try FileStoreInspector(folder: folder.storeURL(), access: access)
            #expect { _ = try folder.makeStore() } throws: { ($0 as? StrataError)?.code == .alreadyInUse }
            #expect(inspector.entries().count == 1)
        }
    }

    @Test(.enabled(if: BindMount.isAvailable, "needs root and mount(8) for a read-only bind mount"))
    func readOnlyWorksOnReadOnlyMedia() throws {
        // Given a damaged store reached through a read-only bind mount
        let folder = try TemporaryFolder()
        _ = try damagedStore(folder)
        let before = try snapshot(folder.storeURL())
        let mount = try #require(
            BindMount.make(
                folder.storeURL(),
                at: folder.url.appendingPathComponent("readonly", isDirectory: true),
                readOnly: true
            )
        )

        // When a read-only inspector lists and verifies it
        let verified = try FileStoreInspector(folder: mount.url, access: .readOnly).verify()

        // Then it reports everything and changed nothing, and a store cannot open there for writing
        #expect(verified.count == 5)
        #expect(verified.filter { $0.problem != nil }.count == 3)
        #expect(try snapshot(folder.storeURL()) == before)
        #expect {
            _ = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "readonly"))
        } throws: { ($0 as? StrataError)?.code == .io }
        #expect(try snapshot(folder.storeURL()) == before)
    }
}
