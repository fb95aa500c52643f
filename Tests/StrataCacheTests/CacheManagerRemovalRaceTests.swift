import Dispatch
import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataCache

/// A reference removed while another thread reads it from disk stays removed: the read's copy is not left in memory.
struct CacheManagerRemovalRaceTests {
    @Test func aReadBetweenTheMemoryAndTheDiskRemovalLeavesNothingInMemory() async throws {
        // Given a stored reference, only on disk (memory emptied)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ParkingClock()
        let cache = try CacheManager(folder: folder.url.appendingPathComponent("beagle"), clock: clock)
        cache.addToCache(
            CacheReference(
                identifier: "k",
                data: Data("v1".utf8),
                hash: "\"v1\"",
                maxAge: 600,
                timeOfCreation: clock.now()
            )
        )

        // When its removal is held between memory and disk (at the disk store's clock reading), a read in between
        // finds it on disk, and the removal then ends
        clock.arm()
        let removed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            cache.removeReference(identifiedBy: "k")
            removed.signal()
        }
        try #require(await clock.waitUntilParked(), "the removal never read the clock")
        #expect(cache.getReference(identifiedBy: "k") != nil, "the read in the gap finds the disk's copy")
        clock.release()
        let finished = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: removed.wait(timeout: .now() + 30) == .success)
            }
        }
        try #require(finished)

        // Then the reference is gone from memory as from disk
        #expect(cache.getReference(identifiedBy: "k") == nil)
    }
}
