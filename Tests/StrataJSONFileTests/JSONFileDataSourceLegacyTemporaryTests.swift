import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataJSONFile

/// Leftover temporary files of stores written before 2026-11-29 (`.tmp-<hex>`) are removed only when their
/// contents prove such a store wrote them; a user's file that merely has that form of name is left as it was.
struct JSONFileDataSourceLegacyTemporaryTests {
    /// A user's `.tmp-cafe` and `.tmp-beef`, in the folder a store adopts and in a shard folder, survive opening,
    /// cleaning, compaction and `removeAll()` byte for byte, while an earlier store's sealed entry and whole index
    /// journal left under such names are removed, and the store works throughout.
    @Test func aUsersTmpHexFileSurvivesWhileProvenLeftoversGo() async throws {
        try await withTemporaryFolder { folder in
            let shard = folder.appendingPathComponent("entries/ab")
            try FileManager.default.createDirectory(at: shard, withIntermediateDirectories: true)
            let users: [(URL, Data)] = [
                (folder.appendingPathComponent(".tmp-cafe"), Data("the user's espresso notes".utf8)),
                (shard.appendingPathComponent(".tmp-beef"), Data("{\"mine\":1}".utf8)),
            ]
            for (url, bytes) in users { try bytes.write(to: url) }
            let json = Data("{\"name\":\"old\",\"number\":1}".utf8)
            let sealed = json + json.withUnsafeBytes { EntrySeal.trailer(for: $0) }
            let provenEntry = folder.appendingPathComponent(".tmp-1f2e")
            try sealed.write(to: provenEntry)
            let provenJournal = shard.appendingPathComponent(".tmp-d00d")
            try IndexJournal.snapshot(of: [:]).write(to: provenJournal)

            let fixture = Fixture(folder: folder)
            let store = try fixture.open()
            #expect(!FileManager.default.fileExists(atPath: provenEntry.path), "a proven leftover was kept")
            #expect(!FileManager.default.fileExists(atPath: provenJournal.path), "a proven leftover was kept")
            try store.setValue(Item(name: "a", number: 1), forKey: "a")
            try store.removeExpired()
            #expect(try store.value(forKey: "a") == Item(name: "a", number: 1))
            try store.removeAll()
            try store.setValue(Item(name: "b", number: 2), forKey: "b")
            #expect(try store.value(forKey: "b") == Item(name: "b", number: 2))

            for (url, bytes) in users {
                #expect(try Data(contentsOf: url) == bytes, "\(url.lastPathComponent) was changed or deleted")
            }
        }
    }
}
