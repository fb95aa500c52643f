import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataOffline
import StrataTestSupport
import StrataTesting
import Testing

/// A queued write dropped while a replay sends it may still be applied by main: until that send ends its key stays
/// pending, and a later write of the key waits behind it, so main never applies the dropped write over a newer one.
struct OfflineDropOnItsWayTests {
    /// Before, the drop made the key look free at once: the later write went straight to main, was saved, and then
    /// the held send of the dropped one landed over it — main kept the dropped value, the cache the later one, and
    /// nothing was pending to repair it.
    @Test(.timeLimit(.minutes(2)), arguments: [false, true])
    func aLaterWriteOfAKeyWaitsForTheDroppedSendOnItsWay(dropsAll: Bool) async throws {
        try await withNotes { server, notes in
            // Given a write of a queued while main refused writes, now on its way in a replay that main holds
            server.failsWrites = true
            _ = try await notes.put(Note(id: "a", text: "dropped", version: 1), in: KeyQuery("a"))
            server.failsWrites = false
            let record = try #require(await notes.outbox.pendingWrites.first)
            let (arrived, release) = (Gate(), Gate())
            server.holdNextWrite(arrived: arrived, release: release)
            let replay = Task { await notes.sync() }
            await arrived.wait()

            // When the app drops it, then writes a again before main answers the held send
            if dropsAll { try await notes.outbox.dropAll() } else { try await notes.outbox.drop(record.sequence) }
            #expect(await notes.outbox.isPending(key: "a"))
            let later = Task { try await notes.put(Note(id: "a", text: "later", version: 2), in: KeyQuery("a")) }
            // Bounded wait, long for a loaded machine (the record is appended with fsync).
            _ = await poll(within: .seconds(30), until: { await notes.outbox.count > 0 })
            #expect(await notes.outbox.count == 1, "the later write joins the queue")
            release.open()
            _ = await replay.value
            #expect(try await later.value.isPending)
            _ = await notes.sync()

            // Then main applied the two in their order and holds the later one, as the cache does; nothing waits
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["dropped", "later"])
            #expect(try await notes.get(KeyQuery("a"), operation: .main).value.text == "later")
            #expect(!(await notes.outbox.isPending(key: "a")))
        }
    }

    /// Before, a read of a key whose record was dropped on its way read the cache only, as for a first attempt on its
    /// way: the drop had taken the cache's copy (nothing of the key left to wait for), so `get` and `getAll` answered
    /// "not found" until main answered the send, though main held the key's older value all along.
    @Test(.timeLimit(.minutes(1)))
    func aKeyWhoseDroppedRecordIsOnItsWayReadsMainWithoutKeepingItsAnswer() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // A main (over memory, which answers list reads) that fails writes while `refuses`, and holds the next one
        // once `holds`
        let (refuses, holds, arrived, release) = (Locked(false), Locked(false), Gate(), Gate())
        let main = ScriptedMain {
            if refuses.withLock({ $0 }) { throw StrataError(.network, "main is down") }
            guard holds.withLock({ $0 }) else { return }
            holds.withLock { $0 = false }
            arrived.open()
            await release.wait()
        }
        let cache = MemoryDataSource<Note>()
        let notes = try await OfflineRepository.open(
            main: main,
            cache: cache,
            outboxFolder: folder,
            configuration: .init(
                backoff: RetryPlugin.Backoff(initial: .seconds(60), jitter: .none),
                replaysOnTimer: false,
                clock: ManualClock()
            )
        )

        // Given main holding a's older value, and a write of a queued, now on its way in a replay main holds
        try await notes.put(Note(id: "a", text: "older", version: 1), in: KeyQuery("a"))
        try await notes.put(Note(id: "b", text: "b", version: 1), in: KeyQuery("b"))
        refuses.withLock { $0 = true }
        #expect(try await notes.put(Note(id: "a", text: "dropped", version: 2), in: KeyQuery("a")).isPending)
        refuses.withLock { $0 = false }
        let record = try #require(await notes.outbox.pendingWrites.first)
        holds.withLock { $0 = true }
        let replay = Task { await notes.sync() }
        await arrived.wait()

        // When the app drops it, and the key is read before main answers the held send
        try await notes.outbox.drop(record.sequence)
        let read = try await notes.get(KeyQuery("a"))
        let listed = try await notes.getAll(IdsQuery(["a", "b"]))

        // Then main answers the reads, with the value it holds, and the cache keeps nothing of it
        #expect(read.value.text == "older" && read.isPending)
        #expect(listed.map(\.text) == ["older", "b"])
        let cached = await strataError { _ = try await cache.get(KeyQuery("a")) }
        #expect(cached?.code == .notFound, "\(String(describing: cached))")

        // And once main applied the dropped write, a read answers that one
        release.open()
        _ = await replay.value
        #expect(try await notes.get(KeyQuery("a")).value.text == "dropped")
        await notes.close()
    }
}
