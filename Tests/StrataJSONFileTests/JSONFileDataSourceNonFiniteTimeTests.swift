import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataJSONFile

/// Index lines whose checksum holds but whose time or maximum age is not a finite number (NaN, ±infinity): a
/// damaged index, rebuilt from the entry files, never an entry that does not expire.
struct JSONFileDataSourceNonFiniteTimeTests {
    @Test(arguments: [
        IndexRecord(storedAt: 1_000, maxAge: .infinity, sequence: 10),
        IndexRecord(storedAt: .nan, maxAge: 60, sequence: 10),
        IndexRecord(storedAt: 1_000, maxAge: .nan, sequence: 10),
        IndexRecord(storedAt: 1_000, maxAge: 60, sequence: 10, freshUntil: .infinity),
        // Each finite, their sum (the expiry) not.
        IndexRecord(storedAt: 1e308, maxAge: 1e308, sequence: 10),
    ])
    func anIndexLineWithANonFiniteTimeIsDamage(record: IndexRecord) async throws {
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open(timeToLive: .seconds(60))
                try store.setValue(Item(name: "a", number: 1), forKey: "a")
            }
            // Given a journal whose last line, checksum intact, gives "a" a time that is not a number
            let index = try FileHandle(forWritingTo: folder.appendingPathComponent("index.journal"))
            try index.seekToEnd()
            try index.write(contentsOf: IndexJournal.line(for: .put(key: "a", record: record)))
            try index.close()
            fixture.clock.advance(by: .seconds(120))

            let store = try fixture.open(timeToLive: .seconds(60))

            #expect(try store.value(forKey: "a") == nil, "the entry's file says it expired after 60 s")
            #expect(!fixture.reports.all.isEmpty, "the damaged index is reported")
        }
    }

    /// Metadata a caller gives with a date that is not a finite time: refused with `invalidArgument`, by a put and
    /// by a renewal, and the store keeps what it had.
    @Test(arguments: NonFiniteMetadata.cases)
    func metadataWithANonFiniteDateIsRefused(_ name: String) async throws {
        let metadata = NonFiniteMetadata.metadata(name)
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            let store = try fixture.open(timeToLive: .seconds(60))
            try store.setValue(Item(name: "kept", number: 1), forKey: "kept")

            #expect { try store.setValue(Item(name: "new", number: 2), forKey: "new", metadata: metadata) } throws: {
                ($0 as? StrataError)?.code == .invalidArgument
            }
            #expect { try store.renewMetadata(metadata, forKey: "kept") } throws: {
                ($0 as? StrataError)?.code == .invalidArgument
            }

            #expect(try store.value(forKey: "new") == nil)
            fixture.clock.advance(by: .seconds(120))
            #expect(try store.value(forKey: "kept") == nil, "the entry keeps its 60 s lifetime")
        }
    }

    /// Two finite dates so far apart that the time between them is not finite, as an expiry or as the freshness date
    /// of an entry that must never be served stale (whose expiry is its freshness date), in a store without a time to
    /// live: the entry is renewed to never expire, and its index line is one the next open reads (the age was written
    /// as `inf`: the index was rebuilt as damaged).
    @Test(arguments: ["expiry", "freshness"])
    func aRenewalBetweenTheFarthestFiniteDatesIsReadBackAtTheNextOpen(date: String) async throws {
        let far = Date(timeIntervalSince1970: 1e308)
        let metadata =
            date == "expiry"
            ? EntryMetadata(storedAt: Date(timeIntervalSince1970: -1e308), expiresAt: far)
            : EntryMetadata(storedAt: Date(timeIntervalSince1970: -1e308), freshUntil: far, forbidsServingStale: true)
        try await withTemporaryFolder { folder in
            let fixture = Fixture(folder: folder)
            do {
                let store = try fixture.open()
                try store.setValue(Item(name: "a", number: 1), forKey: "a")
                #expect(try store.renewMetadata(metadata, forKey: "a"))
            }
            fixture.clock.advance(by: .seconds(86_400 * 365))

            let store = try fixture.open()

            #expect(try store.value(forKey: "a") == Item(name: "a", number: 1))
            #expect(fixture.reports.all.isEmpty, "\(fixture.reports.all)")
        }
    }
}
