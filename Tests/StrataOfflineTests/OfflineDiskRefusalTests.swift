import Foundation
import LoopbackServer
import Strata
import StrataOffline
import StrataTestSupport
import StrataTesting
import Testing

/// The replay timer (on a manual clock) when a record's file cannot be written or removed (an immutable file: not
/// even root may replace or unlink it): the write waits its backoff all the same, instead of being sent again at
/// once, in a loop, for as long as the disk refuses.
struct OfflineDiskRefusalTests {
    /// Runs `body` with a repository on a manual clock whose backoff waits 1 s, then 2 s, holding one write of `a`
    /// that main (down) refused once, the timer asleep until its next attempt, and the record's file immutable;
    /// `body` gets the server, the repository, the clock and how many writes the server had when it started.
    private static func withRefusedWrite(
        _ body: (NotesServer, NotesRepository, ManualClock, Int) async throws -> Void
    ) async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let clock = ManualClock()
        let backoff = RetryPlugin.Backoff(initial: .seconds(1), multiplier: 2, maximum: .seconds(60), jitter: .none)
        let notes = try await notesRepository(
            server,
            folder: folder,
            configuration: .init(backoff: backoff, clock: clock)
        )
        server.isDown = true
        try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
        await clock.waitForSleepers(1)
        let file = try #require(recordFile(1, in: notes.outbox.folder))
        #expect(setImmutable(file, true))
        defer { setImmutable(file, false) }
        try await body(server, notes, clock, server.writeRequestCount)
        setImmutable(file, false)
        await notes.close()
        await server.stop()
    }

    @Test(.enabled(if: immutableFilesWork), .timeLimit(.minutes(1)))
    func aWriteWhoseRecordCannotBeSavedWaitsItsBackoff() async throws {
        try await Self.withRefusedWrite { server, notes, clock, sent in
            // When the timer replays it, main still down, and its next attempt's time cannot be saved
            clock.advance(by: .seconds(1))
            await clock.waitForSleepers(1)

            // Then it was sent once, and the timer waits the next backoff (2 s) all the same
            #expect(server.writeRequestCount == sent + 1)
            #expect(clock.sleepCalls.last == .seconds(2))
            #expect(await notes.outbox.pendingWrites.first?.notBefore == clock.now().addingTimeInterval(2))
        }
    }

    @Test(.enabled(if: immutableFilesWork), .timeLimit(.minutes(1)))
    func aDeliveredWriteWhoseFileCannotBeRemovedWaitsBeforeItIsSentAgain() async throws {
        try await Self.withRefusedWrite { server, notes, clock, sent in
            // When main is back and the timer delivers the write, whose file then cannot be removed
            server.isDown = false
            clock.advance(by: .seconds(1))
            await clock.waitForSleepers(1)

            // Then it was sent once and stays queued, waiting a backoff before it is sent again
            #expect(server.writeRequestCount == sent + 1)
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one"])
            #expect(await notes.outbox.count == 1)
            #expect(clock.sleepCalls.last == .seconds(2))
        }
    }
}
