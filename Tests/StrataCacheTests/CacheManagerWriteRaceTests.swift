import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataCache

/// Two writes of one reference never interleave: memory and disk end at one version, and a renewal never stores an
/// older version over a newer one written between its check and its write.
struct CacheManagerWriteRaceTests {
    private static func reference(_ version: String, at clock: ParkingClock) -> CacheReference {
        CacheReference(
            identifier: "k",
            data: Data(version.utf8),
            hash: "\"\(version)\"",
            maxAge: 600,
            timeOfCreation: clock.now()
        )
    }

    @Test(.timeLimit(.minutes(1)))
    func aWriteBetweenAnotherOnesMemoryAndDiskWritesWaitsForIt() async throws {
        // Given a manager holding v0
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ParkingClock()
        let cache = try CacheManager(folder: folder.url.appendingPathComponent("beagle"), clock: clock)
        cache.addToCache(Self.reference("v0", at: clock))

        // When a write of v1 is held between memory and disk (at the disk store's clock reading; memory read the
        // clock once before), and a write of v2 is made meanwhile, then v1's write ends
        let (v1, v2) = (Self.reference("v1", at: clock), Self.reference("v2", at: clock))
        clock.arm(skipping: 1)
        let first = BackgroundWork { cache.addToCache(v1) }
        try #require(await clock.waitUntilParked(), "the write never read the clock")
        try #require(cache.memoryLayer.value(forKey: "k")?.hash == "\"v1\"", "memory holds v1 when the write parks")
        let second = BackgroundWork { cache.addToCache(v2) }
        _ = await second.ended(within: 1)
        clock.release()
        try #require(await first.ended(within: 30))
        try #require(await second.ended(within: 30))

        // Then memory and disk hold the same version
        let inMemory = try #require(cache.memoryLayer.value(forKey: "k"))
        let onDisk = try #require(try cache.persistentStore.value(forKey: "k"))
        #expect(inMemory.hash == onDisk.hash)
    }

    @Test(.timeLimit(.minutes(1)))
    func aRenewalDoesNotStoreTheOlderVersionOverANewerOneWrittenAfterItsCheck() async throws {
        // Given a manager holding v1 (in memory and on disk)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ParkingClock()
        let cache = try CacheManager(folder: folder.url.appendingPathComponent("beagle"), clock: clock)
        cache.addToCache(Self.reference("v1", at: clock))
        let store = ReferenceStore(manager: cache)

        // When a 304 confirming v1 is held after its check (a memory hit, which marks the disk entry used: a clock
        // reading) as it writes the renewed v1 to disk (after the memory layer's reading), and v2 is written meanwhile
        let (metadata, v2) = (EntryMetadata(storedAt: clock.now(), eTag: "\"v1\""), Self.reference("v2", at: clock))
        clock.arm(skipping: 2)
        let renewal = BackgroundWork {
            let semaphore = DispatchSemaphore(value: 0)
            Task {
                _ = try? await store.renewMetadata(metadata, in: KeyQuery("k"))
                semaphore.signal()
            }
            semaphore.wait()
        }
        try #require(await clock.waitUntilParked(), "the renewal never read the clock")
        let newer = BackgroundWork { cache.addToCache(v2) }
        _ = await newer.ended(within: 1)
        clock.release()
        try #require(await renewal.ended(within: 30))
        try #require(await newer.ended(within: 30))

        // Then v2, written after the renewal checked v1, is what memory and disk hold
        #expect(cache.memoryLayer.value(forKey: "k")?.hash == "\"v2\"")
        #expect(try cache.persistentStore.value(forKey: "k")?.hash == "\"v2\"")
    }
}
