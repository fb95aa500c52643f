import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataFile

/// The file store keeps an entry's freshness date (trailer version 4) beside its hard expiry, and still reads the
/// version 3 trailers written before it.
struct FileDataSourceFreshnessTests {
    private static func inode(_ url: URL) throws -> UInt64 {
        try FileDataSourceKeyValueStoreTests.inode(url)
    }

    @Test func putEntryKeepsFreshUntilAndAStaleEntryIsStillServed() async throws {
        // Given a store with a time to live, and an entry from a source that gives only freshness and validators
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        let store = try folder.makeStore(clock: clock, timeToLive: .seconds(3_600))
        let freshUntil = clock.now().addingTimeInterval(60)
        let metadata = EntryMetadata(freshUntil: freshUntil, eTag: "\"v1\"")

        // When it is stored, and its freshness runs out
        _ = try await store.putEntry(StoredEntry(value: Data("a".utf8), metadata: metadata), in: KeyQuery("k"))
        let storedAt = clock.now()
        clock.advance(by: .seconds(120))

        // Then it is still served, with its freshness date, stamped by the store's clock, expiring by its time
        // to live
        let entry = try await store.getEntry(KeyQuery("k"))
        #expect(entry.value == Data("a".utf8))
        #expect(entry.metadata.freshUntil == freshUntil)
        #expect(entry.metadata.storedAt == storedAt)
        #expect(entry.metadata.expiresAt == storedAt.addingTimeInterval(3_600))
        #expect(entry.metadata.eTag == "\"v1\"")
        #expect(store.info(forKey: "k")?.freshUntil == freshUntil)
    }

    @Test func aRenewalReplacesFreshUntilAndItSurvivesAReopen() async throws {
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        var store: FileDataSource? = try folder.makeStore(clock: clock)
        let first = EntryMetadata(freshUntil: clock.now().addingTimeInterval(60), eTag: "\"v1\"")
        _ = try await store?.putEntry(StoredEntry(value: Data.pattern(1_000), metadata: first), in: KeyQuery("k"))
        let file = folder.storeURL().appendingPathComponent(try #require(try folder.entryFiles().first))
        let inodeBefore = try Self.inode(file)

        clock.advance(by: .seconds(90))
        let renewed = EntryMetadata(freshUntil: clock.now().addingTimeInterval(60), eTag: "\"v1\"")
        #expect(try await store?.renewMetadata(renewed, in: KeyQuery("k")) == true)
        #expect(try Self.inode(file) == inodeBefore)
        #expect(store?.entry(forKey: "k")?.metadata.freshUntil == renewed.freshUntil)
        #expect(store?.entry(forKey: "k")?.metadata.storedAt == clock.now())

        // A renewal without a freshness date clears it
        let cleared = EntryMetadata(eTag: "\"v1\"")
        #expect(try await store?.renewMetadata(cleared, in: KeyQuery("k")) == true)
        #expect(store?.entry(forKey: "k")?.metadata.freshUntil == nil)
        #expect(try await store?.renewMetadata(renewed, in: KeyQuery("k")) == true)

        store = nil
        let reopened = try folder.makeStore(clock: clock)
        #expect(reopened.entry(forKey: "k")?.value == .pattern(1_000))
        #expect(reopened.entry(forKey: "k")?.metadata.freshUntil == renewed.freshUntil)
        #expect(reopened.info(forKey: "k")?.freshUntil == renewed.freshUntil)
    }

    @Test func theRuleNeverToServeStaleSurvivesARenewalAndAReopen() async throws {
        // Given an entry whose source forbids serving it stale (flag bit 2 of the trailer), and one that does not
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        var store: FileDataSource? = try folder.makeStore(clock: clock)
        let strict = EntryMetadata(freshUntil: clock.now().addingTimeInterval(60), forbidsServingStale: true)
        _ = try await store?.putEntry(StoredEntry(value: Data("s".utf8), metadata: strict), in: KeyQuery("strict"))
        _ = try await store?.putEntry(
            StoredEntry(value: Data("l".utf8), metadata: EntryMetadata(freshUntil: strict.freshUntil)),
            in: KeyQuery("lenient")
        )
        #expect(store?.entry(forKey: "strict")?.metadata.forbidsServingStale == true)
        #expect(store?.entry(forKey: "lenient")?.metadata.forbidsServingStale == false)

        // When the strict one is renewed without the rule and then with it, and the store is reopened
        var renewed = strict
        renewed.forbidsServingStale = false
        #expect(try await store?.renewMetadata(renewed, in: KeyQuery("strict")) == true)
        #expect(store?.entry(forKey: "strict")?.metadata.forbidsServingStale == false)
        #expect(try await store?.renewMetadata(strict, in: KeyQuery("strict")) == true)
        store = nil
        let reopened = try folder.makeStore(clock: clock)

        // Then the rule is read back from the file, beside the freshness date
        #expect(reopened.entry(forKey: "strict")?.metadata.forbidsServingStale == true)
        #expect(reopened.entry(forKey: "strict")?.metadata.freshUntil == strict.freshUntil)
        #expect(reopened.entry(forKey: "lenient")?.metadata.forbidsServingStale == false)
    }

    @Test func aVersion3EntryReadsAndARenewalGrowsItsTrailerInPlace() async throws {
        // Given a store folder holding an entry written in the version 3 layout
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        let payload = Data.pattern(10_000, seed: 5)
        do {
            let store = try folder.makeStore(clock: clock)
            try store.setValue(payload, forKey: "legacy", options: .init(eTag: "\"v\"", attributes: Data([7, 8])))
        }
        let file = folder.storeURL().appendingPathComponent(try #require(try folder.entryFiles().first))
        try TrailerSurgery.editTrailer(of: file) { fields in
            #expect(fields[0] == 4)
            TrailerSurgery.version3(&fields)
        }
        let version3Length = try Data(contentsOf: file).count
        let inodeBefore = try Self.inode(file)

        // When it is opened, then it reads with its metadata and no freshness date
        var store: FileDataSource? = try folder.makeStore(clock: clock)
        #expect(store?.value(forKey: "legacy") == payload)
        #expect(store?.info(forKey: "legacy")?.eTag == "\"v\"")
        #expect(store?.info(forKey: "legacy")?.attributes == Data([7, 8]))
        #expect(store?.entry(forKey: "legacy")?.metadata.freshUntil == nil)
        #expect(store?.corruptEntriesRemoved == 0)

        // When it is renewed with a freshness date, then its trailer is rewritten as version 4 in the same file:
        // 8 bytes longer, the data untouched
        let freshUntil = clock.now().addingTimeInterval(60)
        let renewed = EntryMetadata(freshUntil: freshUntil, eTag: "\"v\"")
        #expect(try store?.renewMetadata(renewed, forKey: "legacy") == true)
        let bytes = try Data(contentsOf: file)
        #expect(bytes.count == version3Length + 8)
        #expect(bytes.prefix(payload.count) == payload)
        #expect(try Self.inode(file) == inodeBefore)
        #expect(store?.entry(forKey: "legacy")?.metadata.freshUntil == freshUntil)

        // And it reads the same after a reopen
        store = nil
        let reopened = try folder.makeStore(clock: clock)
        #expect(reopened.value(forKey: "legacy") == payload)
        #expect(reopened.info(forKey: "legacy")?.freshUntil == freshUntil)
        #expect(reopened.info(forKey: "legacy")?.attributes == Data([7, 8]))
        #expect(reopened.corruptEntriesRemoved == 0)
    }

    @Test func aVersion3TrailerParsesWithoutFreshUntilAndVersion4RoundTrips() throws {
        var trailer = TrailerSurgery.sample
        trailer.freshUntil = Date(timeIntervalSince1970: 1_060)
        trailer.attributes = Data([1])
        let fields = try TrailerSurgery.fields(of: trailer)
        #expect(fields[0] == 4)
        #expect(fields[1] == 3)
        #expect(TrailerSurgery.sealed(fields).withUnsafeBytes { EntryTrailer(bytes: $0) } == trailer)

        // The version 3 layout: no fresh-until field; a stray flag bit 1 there means nothing
        var version3 = fields
        version3[0] = 3
        version3.removeSubrange(60..<68)
        var expected = trailer
        expected.freshUntil = nil
        #expect(TrailerSurgery.sealed(version3).withUnsafeBytes { EntryTrailer(bytes: $0) } == expected)

        // Version 4 without a freshness date: flag bit 1 clear
        let withoutFreshness = try TrailerSurgery.fields(of: expected)
        #expect(withoutFreshness[1] == 1)
        #expect(TrailerSurgery.sealed(withoutFreshness).withUnsafeBytes { EntryTrailer(bytes: $0) } == expected)
    }
}
