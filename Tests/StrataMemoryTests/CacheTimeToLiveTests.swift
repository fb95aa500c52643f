import Foundation
import Strata
import StrataMemory
import StrataTesting
import Testing

/// A cache's time to live counts from when the cache took the copy: a value main wrote an hour ago (a file or a
/// PostgreSQL row, whose entry says when it was stored) is kept for the cache's whole time to live, not taken as
/// expired on arrival. Before, the copy's expiry was main's stored date plus the cache's time to live, so every read
/// of a value older than that went to main, and a cache over a persistent main silently cached nothing old.
struct CacheTimeToLiveTests {
    @Test func aCopyOfAnOldValueLivesForTheCachesTimeToLive() async throws {
        let clock = ManualClock()
        let main = MemoryDataSource<String>(configuration: .init(clock: clock))
        try main.setValue("v", forKey: "a", metadata: EntryMetadata(storedAt: clock.now().addingTimeInterval(-3_600)))
        let cache = MemoryDataSource<String>(configuration: .init(timeToLive: .seconds(60), clock: clock))
        let repository = CacheRepository(main: main, cache: cache)

        #expect(try await repository.get(KeyQuery("a"), operation: .cacheSync) == "v")
        clock.advance(by: .seconds(59))
        #expect(try await cache.get(KeyQuery("a")) == "v", "a hit until the cache's time to live has passed")
        let entry = try await cache.getEntry(KeyQuery("a"))
        #expect(entry.metadata.storedAt == clock.now().addingTimeInterval(-3_659), "main's stored date is kept")

        clock.advance(by: .seconds(1))
        await #expect(throws: StrataError.self) { try await cache.get(KeyQuery("a")) }
    }
}
