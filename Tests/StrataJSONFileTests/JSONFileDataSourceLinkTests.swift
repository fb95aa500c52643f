import Foundation
import Strata
import Testing

@testable import StrataJSONFile

/// Links planted in a store folder: never followed, never written through, removed (the link, not its target)
/// and reported; files outside the folder stay byte for byte as they were.
struct JSONFileDataSourceLinkTests {
    @Test func aSymlinkedShardFolderIsNeverFollowedByPutsCleanupOrRemoveAll() async throws {
        try await withTemporaryFolder { parent in
            let key = "k"
            let (shard, file) = entryLocation(of: key)
            // A folder outside the store with files that carry the store's names, the key's entry file among them
            let outside = try makeOutsideFolder(
                in: parent,
                entryNames: [file, String(repeating: "a", count: 32) + ".json"]
            )
            let before = try snapshot(of: outside)
            let fixture = Fixture(folder: parent.appendingPathComponent("store"))
            let entries = fixture.folder.appendingPathComponent("entries")
            try FileManager.default.createDirectory(at: entries, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: entries.appendingPathComponent(shard),
                withDestinationURL: outside
            )

            let store = try fixture.open()
            // A read through the link finds nothing: the planted entry is not served
            #expect(try store.value(forKey: key) == nil)
            try store.setValue(Item(name: "mine", number: 1), forKey: key)
            #expect(try snapshot(of: outside) == before)
            #expect(!isLink(entries.appendingPathComponent(shard)))
            #expect(try store.value(forKey: key) == Item(name: "mine", number: 1))
            #expect(fixture.reports.all.contains { $0.code == .corrupt && $0.message.contains("symbolic link") })

            // Links planted while the store is open, at the key's shard and at another one
            try FileManager.default.removeItem(at: entries.appendingPathComponent(shard))
            try FileManager.default.createSymbolicLink(
                at: entries.appendingPathComponent(shard),
                withDestinationURL: outside
            )
            let other = shard == "aa" ? "ab" : "aa"
            try FileManager.default.createSymbolicLink(
                at: entries.appendingPathComponent(other),
                withDestinationURL: outside
            )
            try store.removeExpired()
            #expect(try snapshot(of: outside) == before)
            #expect(!itemExists(entries.appendingPathComponent(other)))

            try FileManager.default.createSymbolicLink(
                at: entries.appendingPathComponent(other),
                withDestinationURL: outside
            )
            try store.setValue(Item(name: "second", number: 2), forKey: "second")
            try store.removeAll()
            #expect(try snapshot(of: outside) == before)
            #expect(!itemExists(entries.appendingPathComponent(other)))
            #expect(store.count == 0)
        }
    }

    @Test func aSymlinkedEntryFileIsAMissAndOnlyTheLinkIsRemoved() async throws {
        try await withTemporaryFolder { parent in
            let fixture = Fixture(folder: parent.appendingPathComponent("store"))
            let store = try fixture.open()
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            let (shard, file) = entryLocation(of: "a")
            let entry = fixture.folder.appendingPathComponent("entries/\(shard)/\(file)")
            // A valid-looking entry elsewhere, linked in place of the entry
            let outside = parent.appendingPathComponent("elsewhere.json")
            try FileManager.default.moveItem(at: entry, to: outside)
            let bytes = try Data(contentsOf: outside)
            try FileManager.default.createSymbolicLink(at: entry, withDestinationURL: outside)

            #expect(try store.value(forKey: "a") == nil)
            #expect(!itemExists(entry))
            #expect(try Data(contentsOf: outside) == bytes)
            #expect(fixture.reports.all.count == 1)

            // A link in place of the index or the journal is never written through either
            let journal = fixture.folder.appendingPathComponent("index.journal")
            try FileManager.default.removeItem(at: journal)
            try FileManager.default.createSymbolicLink(at: journal, withDestinationURL: outside)
            try store.setValue(Item(name: "b", number: 2), forKey: "b")
            try store.removeExpired()
            #expect(try Data(contentsOf: outside) == bytes)
            #expect(!isLink(journal))
        }
    }

    @Test func aSymlinkedStoreFolderIsRefused() async throws {
        try await withTemporaryFolder { parent in
            let real = parent.appendingPathComponent("real")
            try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
            let link = parent.appendingPathComponent("link")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)

            await expectError(.io) { try Fixture(folder: link).open() }
            #expect(try FileManager.default.contentsOfDirectory(atPath: real.path).isEmpty)
        }
    }
}
