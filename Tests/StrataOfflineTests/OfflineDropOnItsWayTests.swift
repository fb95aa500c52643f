import Foundation
import LoopbackServer
import Strata
import StrataOffline
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
            for _ in 0..<3_000 where await notes.outbox.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
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
}
