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

/// A clock that, once armed, holds the first thread that reads it until released.
private final class ParkingClock: WallClock, @unchecked Sendable {
    // @unchecked Sendable: `state` is only touched under `lock`.
    private let lock = NSLock()
    private var state = (armed: false, parked: false)
    private let gate = DispatchSemaphore(value: 0)
    private let base = Date(timeIntervalSince1970: 1_800_000_000)

    func now() -> Date {
        let parks = lock.withLock {
            guard state.armed else { return false }
            state = (false, true)
            return true
        }
        if parks { gate.wait() }
        return base
    }

    func sleep(for duration: Duration) async throws {}

    func arm() { lock.withLock { state.armed = true } }

    func release() { gate.signal() }

    /// Whether a reader parked within 30 seconds.
    func waitUntilParked() async -> Bool {
        for _ in 0..<3_000 {
            if lock.withLock({ state.parked }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
