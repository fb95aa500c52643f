import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataOffline
import StrataTestSupport
import Testing

/// A replay, or an app's drop, cancelled while it takes a refused write's copy out of a cache that honours
/// cancellation: the cache never keeps, shown saved, a value no write of its key is left to bring to main.
struct OfflineCancelledRepairTests {
    /// A replay cancelled as the copy of a write it sets aside leaves the cache keeps the write queued as it was, with
    /// its copy, and the next replay sets it aside and drops the copy — before, the mark was saved first, the copy
    /// stayed, and no replay dropped it any more (found in review).
    @Test(.timeLimit(.minutes(1)))
    func aReplayCancelledAsItDropsTheCopyOfAWriteItSetsAsideKeepsTheWriteQueued() async throws {
        struct Refused: Error {}
        var configuration = OfflineRepository<NetworkDataSource<Note>, HeldSource>.Configuration.sentBySync
        configuration.conflictResolver = ConflictResolver { _ in throw Refused() }
        try await withHeldCache(configuration, holdingDeletes: true) { server, notes, cache in
            // Given a queued write of a, which main refuses as a conflict the resolver cannot settle
            server.isDown = true
            try await notes.put(Note(id: "a", text: "local", version: 1), in: KeyQuery("a"))
            await notes.waitForReplays()
            server.scriptConflict(key: "a", times: 2)
            server.isDown = false
            let queued = try #require(await notes.outbox.pendingWrites.first)

            // When the sync's task is cancelled while the cache drops the write's copy
            let replay = Task { await notes.sync() }
            await cache.arrived.wait()
            replay.cancel()
            cache.release.open()

            // Then the write is still queued as it was, and the cache shows it
            let report = await replay.value
            #expect(report.setAside == 0 && report.remaining == 1, "\(report)")
            #expect(await notes.outbox.pendingWrites == [queued])
            #expect(try await cache.memory.get(KeyQuery("a")).text == "local")

            // And the next replay sets it aside, its copy gone
            #expect(await notes.sync().setAside == 1)
            let cached = await strataError { _ = try await cache.memory.get(KeyQuery("a")) }
            #expect(cached?.code == .notFound, "\(String(describing: cached))")
        }
    }

    /// A write the app takes back leaves the cache though the drop's task is cancelled as its copy goes: the record is
    /// gone for good — before, the copy stayed, and reads and streams showed it saved (found in review).
    @Test(.timeLimit(.minutes(1)))
    func aWriteTheAppTakesBackLeavesTheCacheThoughTheDropIsCancelled() async throws {
        try await withHeldCache(holdingDeletes: true) { server, notes, cache in
            // Given a queued write of a
            server.isDown = true
            try await notes.put(Note(id: "a", text: "taken back", version: 1), in: KeyQuery("a"))
            await notes.waitForReplays()
            let record = try #require(await notes.outbox.pendingWrites.first)

            // When the app drops it, and the drop's task is cancelled as the copy leaves the cache
            let drop = Task { try await notes.outbox.drop(record.sequence) }
            await cache.arrived.wait()
            drop.cancel()
            cache.release.open()
            try await drop.value

            // Then the cache does not hold it
            #expect(await notes.outbox.count == 0)
            let cached = await strataError { _ = try await cache.memory.get(KeyQuery("a")) }
            #expect(cached?.code == .notFound, "\(String(describing: cached))")
        }
    }
}
