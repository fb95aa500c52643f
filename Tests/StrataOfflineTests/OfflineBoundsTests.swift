import Foundation
import LoopbackServer
import Strata
import StrataOffline
import StrataTestSupport
import StrataTesting
import Testing

/// Values at the edges of their range, from a caller or from a record's file: the outbox replays and streams
/// without trapping, and no write waits forever.
struct OfflineBoundsTests {
    /// A pause ending a year ahead (the clock was set back, or another program wrote the record) was never sent by
    /// the timer: it woke after the backoff's longest pause and found the record not due, every time.
    @Test(.timeLimit(.minutes(1)))
    func aPauseEndingBeyondTheLongestIsSentWithoutASync() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let clock = ManualClock()
        // Given a write main refused, whose pause ends in a year
        let record = PendingWrite(
            sequence: 1,
            key: "a",
            operation: .put,
            value: try JSONEncoder().encode(Note(id: "a", text: "one", version: 1)),
            idempotencyKey: "ahead",
            attempts: 1,
            lastFailure: .answered,
            createdAt: clock.now(),
            notBefore: clock.now().addingTimeInterval(365 * 86_400)
        )
        try await plant(record, in: folder)

        // When a repository with a timer opens the outbox, main is up, and the backoff's longest pause passes
        let maximum = Duration.seconds(60)
        let backoff = RetryPlugin.Backoff(initial: .seconds(1), maximum: maximum, jitter: .none)
        let notes = try await notesRepository(
            server,
            folder: folder,
            configuration: .init(backoff: backoff, clock: clock)
        )
        await poll { !server.applied.isEmpty || clock.sleeperCount != 0 }
        clock.advance(by: maximum + .seconds(1))
        await poll { !server.applied.isEmpty || clock.sleeperCount != 0 }
        await notes.waitForReplays()

        // Then the write was delivered, with no sync
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one"])
        #expect(await notes.outbox.count == 0)
        await notes.close()
        await server.stop()
    }

    /// A stream that keeps every response (`bufferingNewest: .max`) trapped adding one to the limit.
    @Test func aStreamKeepingEveryResponseShowsTheValue() async throws {
        try await withNotes { server, notes in
            server.isDown = true
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))

            var responses = notes.stream(KeyQuery("a"), operation: .cache, bufferingNewest: .max).makeAsyncIterator()
            var pending = await responses.next()
            if pending?.isLoading == true { pending = await responses.next() }
            #expect(pending?.value?.text == "one" && pending?.isPending == true)
        }
    }
}
