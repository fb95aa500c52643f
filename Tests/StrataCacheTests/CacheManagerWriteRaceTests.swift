import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataCache

/// Two writes of one reference never interleave: memory and disk end at one version, a renewal never stores an older
/// version over a newer one written between its check and its write, and a misfiled reference's removal never takes a
/// good one written meanwhile.
struct CacheManagerWriteRaceTests {
    private static func reference(_ version: String, at clock: ParkingClock, as identifier: String = "k")
        -> CacheReference
    {
        CacheReference(
            identifier: identifier,
            data: Data(version.utf8),
            hash: "\"\(version)\"",
            maxAge: 600,
            timeOfCreation: clock.now()
        )
    }

    /// Runs `first` on another thread until it parks at the clock reading after `skipping` ones, checks `parked`, then
    /// runs `second` until it ends, or waits for `first` (where their writes take turns: `cache` counts the wait), and
    /// lets both end.
    private static func interleave(
        _ clock: ParkingClock,
        of cache: CacheManager,
        parkingAfter skipping: Int,
        _ first: @escaping @Sendable () -> Void,
        parked: () throws -> Void = {},
        then second: @escaping @Sendable () -> Void
    ) async throws {
        clock.arm(skipping: skipping)
        let firstWork = BackgroundWork(first)
        try #require(await clock.waitUntilParked(), "the first work never read the clock")
        try parked()
        let waitsBefore = cache.turnsWaitedFor
        let secondWork = BackgroundWork(second)
        await poll { secondWork.isDone || cache.turnsWaitedFor > waitsBefore }
        clock.release()
        try #require(await firstWork.ended(within: 30))
        try #require(await secondWork.ended(within: 30))
    }

    /// A manager on a parking clock in a fresh folder, holding `references`; its diagnostics read the clock.
    private static func withManager(
        holding versions: [CacheReference],
        _ body: (CacheManager) async throws -> Void,
        clock: ParkingClock
    ) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = try CacheManager(
            configuration: .init(
                folder: folder.url.appendingPathComponent("beagle"),
                clock: clock,
                diagnostics: { _ in _ = clock.now() }
            )
        )
        for version in versions { cache.addToCache(version) }
        try await body(cache)
    }

    @Test(.timeLimit(.minutes(1)))
    func aWriteBetweenAnotherOnesMemoryAndDiskWritesWaitsForIt() async throws {
        let clock = ParkingClock()
        let (v0, v1, v2) = (
            Self.reference("v0", at: clock), Self.reference("v1", at: clock), Self.reference("v2", at: clock)
        )
        try await Self.withManager(
            holding: [v0],
            { cache in
                // When a write of v1 is held between memory and disk (at the disk store's clock reading; memory read the
                // clock once before), and a write of v2 is made meanwhile, then v1's write ends
                try await Self.interleave(
                    clock,
                    of: cache,
                    parkingAfter: 1,
                    { cache.addToCache(v1) },
                    parked: {
                        try #require(
                            cache.memoryLayer.value(forKey: "k")?.hash == "\"v1\"",
                            "memory holds v1 when it parks"
                        )
                    },
                    then: { cache.addToCache(v2) }
                )

                // Then memory and disk hold the same version
                let inMemory = try #require(cache.memoryLayer.value(forKey: "k"))
                let onDisk = try #require(try cache.persistentStore.value(forKey: "k"))
                #expect(inMemory.hash == onDisk.hash)
            },
            clock: clock
        )
    }

    @Test(.timeLimit(.minutes(1)))
    func aRenewalDoesNotStoreTheOlderVersionOverANewerOneWrittenAfterItsCheck() async throws {
        let clock = ParkingClock()
        let (v1, v2) = (Self.reference("v1", at: clock), Self.reference("v2", at: clock))
        let metadata = EntryMetadata(storedAt: clock.now(), eTag: "\"v1\"")
        try await Self.withManager(
            holding: [v1],
            { cache in
                // When a 304 confirming v1 is held after its check (a memory hit, which marks the disk entry used: a clock
                // reading) as it writes the renewed v1 to disk (after the memory layer's reading), and v2 is written
                // meanwhile
                let store = ReferenceStore(manager: cache)
                try await Self.interleave(
                    clock,
                    of: cache,
                    parkingAfter: 2,
                    {
                        let semaphore = DispatchSemaphore(value: 0)
                        Task {
                            _ = try? await store.renewMetadata(metadata, in: KeyQuery("k"))
                            semaphore.signal()
                        }
                        semaphore.wait()
                    },
                    then: { cache.addToCache(v2) }
                )

                // Then v2, written after the renewal checked v1, is what memory and disk hold
                #expect(cache.memoryLayer.value(forKey: "k")?.hash == "\"v2\"")
                #expect(try cache.persistentStore.value(forKey: "k")?.hash == "\"v2\"")
            },
            clock: clock
        )
    }

    @Test(.timeLimit(.minutes(1)))
    func aMisfiledReferencesRemovalLeavesAGoodOneWrittenAfterItsCheck() async throws {
        let clock = ParkingClock()
        let (misfiled, good) = (Self.reference("other", at: clock, as: "elsewhere"), Self.reference("v1", at: clock))
        try await Self.withManager(
            holding: [],
            { cache in
                // Given a reference of another identifier stored under k (by hand, in memory)
                cache.memoryLayer.setValue(misfiled, forKey: "k")

                // When a read finds it (a memory hit, which marks the disk entry used: a clock reading), and a good
                // reference is written as the read reports it, before it is removed (the diagnostics' reading)
                try await Self.interleave(
                    clock,
                    of: cache,
                    parkingAfter: 1,
                    { _ = cache.getReference(identifiedBy: "k") },
                    then: {
                        cache.addToCache(good)
                    }
                )

                // Then the good reference stays, in memory and on disk
                #expect(cache.memoryLayer.value(forKey: "k")?.hash == "\"v1\"")
                #expect(try cache.persistentStore.value(forKey: "k")?.hash == "\"v1\"")
            },
            clock: clock
        )
    }
}
