import Foundation
import Strata
import StrataJSONFile
import StrataTesting
import Testing

/// The JSON store under the store contract: renewal as an index record, metadata, partial writes announced.
struct JSONFileDataSourceKeyValueStoreTests {
    @Test func aRenewalAppendsAnIndexRecordAndLeavesTheEntryFile() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            var store: JSONFileDataSource<Item>? = try fixture.open(timeToLive: .seconds(60))
            try store?.setValue(Item(name: "a", number: 1), forKey: "a")
            let entries = try FileManager.default.subpathsOfDirectory(
                atPath: folder.appendingPathComponent("entries").path
            )
            .filter { $0.hasSuffix(".json") }
            let file = folder.appendingPathComponent("entries").appendingPathComponent(try #require(entries.first))
            let bytes = try Data(contentsOf: file)

            let renewedUntil = fixture.clock.now().addingTimeInterval(3_600)
            let renewed = EntryMetadata(storedAt: fixture.clock.now(), expiresAt: renewedUntil)
            #expect(try store?.renewMetadata(renewed, forKey: "a") == true)
            #expect(try Data(contentsOf: file) == bytes)

            fixture.clock.advance(by: .seconds(120))
            #expect(try store?.value(forKey: "a") == Item(name: "a", number: 1))
            store = nil
            let reopened = try fixture.open(timeToLive: .seconds(60))
            let entry = try #require(try reopened.entry(forKey: "a"))
            #expect(abs(try #require(entry.expiresAt).timeIntervalSince(renewedUntil)) < 0.001)
        }
    }

    @Test func aPutAllThatFailsHalfWayAnnouncesTheKeysItWrote() async throws {
        try await withTemporaryFolder { folder in
            let store = try JSONFileDataSource<Double>(folder: folder)
            var changes = store.changeBroadcaster.changes(forKey: nil, bufferingNewest: 10).makeAsyncIterator()

            // JSON has no NaN: the second value cannot be encoded.
            await #expect(throws: StrataError.self) {
                _ = try await store.putAll([1, .nan, 3], in: IdsQuery(["a", "b", "c"]))
            }
            try store.removeValue(forKey: "a")

            #expect(await changes.next() == .put(key: "a"))
            #expect(await changes.next() == .delete(key: "a"))
            #expect(store.sortedKeys().isEmpty)
        }
    }
}
