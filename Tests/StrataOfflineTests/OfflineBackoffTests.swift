import Foundation
import LoopbackServer
import Strata
import StrataOffline
import StrataTesting
import Testing

/// The replay timer on a manual clock: the retry plugin's backoff between replays of a write main keeps failing.
struct OfflineBackoffTests {
    @Test func theTimerReplaysAfterEachBackoff() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let clock = ManualClock()
        let notes = try await notesRepository(
            server,
            folder: folder,
            configuration: .init(
                backoff: RetryPlugin.Backoff(initial: .seconds(1), multiplier: 2, maximum: .seconds(60), jitter: .none),
                clock: clock
            )
        )
        server.isDown = true

        // A write while main is down waits 1 s, the first backoff
        try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
        await clock.waitForSleepers(1)
        #expect(clock.sleepCalls.last == .seconds(1))
        #expect(await notes.outbox.pendingWrites.first?.notBefore == clock.now().addingTimeInterval(1))

        // The timer replays it after 1 s; main is still down, so the next wait is 2 s
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        #expect(clock.sleepCalls.last == .seconds(2))
        #expect(await notes.outbox.pendingWrites.first?.attempts == 2)
        #expect(server.applied.isEmpty)

        // Main comes back; after 2 s the timer delivers the write
        server.isDown = false
        await awaitChange(in: notes.outbox.changeBroadcaster.changes(forKey: "a")) {
            clock.advance(by: .seconds(2))
        }
        #expect(await notes.outbox.count == 0)
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one"])
        await notes.close()
        await server.stop()
    }

    @Test func aSuccessfulMainCallReplaysAtOnceIgnoringBackoff() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let clock = ManualClock()
        let notes = try await notesRepository(
            server,
            folder: folder,
            configuration: .init(backoff: RetryPlugin.Backoff(initial: .seconds(600), jitter: .none), clock: clock)
        )
        server.isDown = true
        try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
        server.isDown = false

        // A write of another key reaches main, which triggers the replay of a without waiting 10 minutes
        await awaitChange(in: notes.outbox.changeBroadcaster.changes(forKey: "a")) {
            _ = try? await notes.put(Note(id: "b", text: "bee", version: 1), in: KeyQuery("b"))
        }
        #expect(await notes.outbox.count == 0)
        #expect(server.applied.map(\.key) == ["b", "a"])
        await notes.close()
        await server.stop()
    }
}
