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

    /// The time to live counts from the write, not from an older stored date the entry carries (a copy of another
    /// tier's value), across a reopening too: see `EntryMetadata.expiry(timeToLive:now:)`.
    @Test func theTimeToLiveCountsFromTheWriteNotFromAnOlderStoredDate() async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            var store: JSONFileDataSource<Item>? = try fixture.open(timeToLive: .seconds(60))
            let storedAt = fixture.clock.now().addingTimeInterval(-3_600)
            try store?.setValue(Item(name: "a", number: 1), forKey: "a", metadata: EntryMetadata(storedAt: storedAt))
            fixture.clock.advance(by: .seconds(59))
            #expect(try store?.value(forKey: "a") == Item(name: "a", number: 1))
            store = nil
            let reopened = try fixture.open(timeToLive: .seconds(60))
            #expect(try reopened.value(forKey: "a") == Item(name: "a", number: 1))
            fixture.clock.advance(by: .seconds(1))
            #expect(try reopened.value(forKey: "a") == nil)
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

/// The JSON store keeps an entry's freshness date in its index record and its entry file.
struct JSONFileDataSourceFreshnessTests {
    @Test func putEntryKeepsFreshUntilARenewalReplacesItAndItSurvivesAReopen() async throws {
        try await withTemporaryFolder { folder in
            // Given a store with a time to live, and an entry from a source that gives only freshness
            let fixture = Fixture(folder: folder)
            var store: JSONFileDataSource<Item>? = try fixture.open(timeToLive: .seconds(3_600))
            let storedAt = fixture.clock.now()
            let freshUntil = storedAt.addingTimeInterval(60)
            let entry = StoredEntry(value: Item(name: "a", number: 1), metadata: EntryMetadata(freshUntil: freshUntil))
            _ = try await store?.putEntry(entry, in: KeyQuery("a"))

            // Then, past its freshness, it is still served, stamped by the store's clock, expiring by its time
            // to live
            fixture.clock.advance(by: .seconds(120))
            let read = try #require(try store?.entry(forKey: "a"))
            #expect(read.value == Item(name: "a", number: 1))
            #expect(read.metadata.freshUntil == freshUntil)
            #expect(read.storedAt == storedAt)
            #expect(read.expiresAt == storedAt.addingTimeInterval(3_600))

            // When it is renewed, then the freshness date is replaced, and kept across a reopen
            let renewedUntil = fixture.clock.now().addingTimeInterval(60)
            #expect(try store?.renewMetadata(EntryMetadata(freshUntil: renewedUntil), forKey: "a") == true)
            #expect(try store?.entry(forKey: "a")?.metadata.freshUntil == renewedUntil)
            store = nil
            let reopened = try fixture.open(timeToLive: .seconds(3_600))
            #expect(try reopened.entry(forKey: "a")?.metadata.freshUntil == renewedUntil)
            #expect(try reopened.renewMetadata(EntryMetadata(), forKey: "a") == true)
            #expect(try reopened.entry(forKey: "a")?.metadata.freshUntil == nil)
        }
    }
}
