import Foundation
import LoopbackServer
import Strata
import StrataOffline
import StrataTestSupport
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

    /// A backoff of nothing (`maximum: .zero`, often meant as "no cap", or `initial: .zero`) made every failed
    /// replay set the timer to now: replays as fast as main failed, for as long as it was down.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            RetryPlugin.Backoff(initial: .seconds(1), maximum: .zero, jitter: .none),
            RetryPlugin.Backoff(initial: .zero, maximum: .zero, jitter: .none),
            RetryPlugin.Backoff(initial: .seconds(-5), maximum: .seconds(60), jitter: .none),
        ]
    )
    func aBackoffOfNothingStillPausesBetweenReplays(backoff: RetryPlugin.Backoff) async throws {
        let clock = ManualClock()
        try await withNotes(configuration: .init(backoff: backoff, clock: clock)) { server, notes in
            server.isDown = true

            // A write while main is down waits the default's first pause, 1 s, and is tried once more after it
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            await clock.waitForSleepers(1)
            #expect(clock.sleepCalls.last == .seconds(1))
            clock.advance(by: .seconds(1))
            await clock.waitForSleepers(1)
            #expect(await notes.outbox.pendingWrites.first?.attempts == 2)
            #expect(clock.sleepCalls.last.map { $0 > .zero } == true)
        }
    }

    @Test func aSuccessfulMainCallReplaysAtOnceIgnoringBackoff() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let clock = ManualClock()
        let network = try Reachability()
        let notes = try await notesRepository(
            server,
            folder: folder,
            reachability: network,
            configuration: .init(backoff: RetryPlugin.Backoff(initial: .seconds(600), jitter: .none), clock: clock)
        )
        network.isUnreachable = true
        try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
        #expect(await notes.outbox.pendingWrites.first?.lastFailure == .unreachable)
        network.isUnreachable = false

        // A write of another key reaches main, which triggers the replay of a (main was unreachable) without
        // waiting 10 minutes
        await awaitChange(in: notes.outbox.changeBroadcaster.changes(forKey: "a")) {
            _ = try? await notes.put(Note(id: "b", text: "bee", version: 1), in: KeyQuery("b"))
        }
        #expect(await notes.outbox.count == 0)
        #expect(server.applied.map(\.key) == ["b", "a"])
        await notes.close()
        await server.stop()
    }

    @Test(.timeLimit(.minutes(2))) func aReadMainAnswersReplaysAtOnceIgnoringBackoff() async throws {
        // The timer is on, on a clock nobody advances: it cannot be what delivers the writes.
        let clock = ManualClock()
        let start = clock.now()
        let backoff = RetryPlugin.Backoff(initial: .seconds(600), jitter: .none)
        let network = try Reachability()
        try await withNotes(reachability: network, configuration: .init(backoff: backoff, clock: clock)) {
            server,
            notes in
            server.setNote(try JSONEncoder().encode(Note(id: "c", text: "sea", version: 1)), forKey: "c")
            network.isUnreachable = true
            for (key, text) in [("a", "one"), ("b", "bee"), ("a", "two")] {
                let write = try await notes.put(Note(id: key, text: text, version: 1), in: KeyQuery(key))
                #expect(write.isPending)
            }
            // A read that cannot reach main replays nothing: main is still unreachable
            await #expect(throws: StrataError.self) { try await notes.get(KeyQuery("c")) }
            #expect(await notes.outbox.count == 3)
            network.isUnreachable = false

            // Main is back; a read it answers replays the outbox, in order, without the backoff's 10 minutes. Eight
            // reads at once start one replay at a time: no write reaches the server twice.
            let drained = notes.outbox.changeBroadcaster.changes(bufferingNewest: 16)
            let reads = try await withThrowingTaskGroup(of: OfflineValue<Note>.self) { group in
                for _ in 0..<8 { group.addTask { try await notes.get(KeyQuery("c"), operation: .main) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(reads.map(\.value.text) == Array(repeating: "sea", count: 8))
            #expect(reads.allSatisfy { !$0.isPending })
            for await _ in drained where await notes.outbox.count == 0 { break }
            #expect(server.applied.map(\.key) == ["a", "b", "a"])
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one", "two"])
            #expect(server.duplicateCount == 0)
            #expect(clock.now() == start)
        }
    }

    /// Runs `body` with a server that answers reads (of c) but answers every write 503, and a put of a it refused
    /// once, which waits 60 s on `clock` (the pause doubles after each failure).
    private func withAWriteMainRefused(
        _ body: (NotesServer, NotesRepository, ManualClock) async throws -> Void
    ) async throws {
        let clock = ManualClock()
        let backoff = RetryPlugin.Backoff(initial: .seconds(60), multiplier: 2, maximum: .seconds(600), jitter: .none)
        try await withNotes(configuration: .init(backoff: backoff, clock: clock)) { server, notes in
            server.setNote(try JSONEncoder().encode(Note(id: "c", text: "sea", version: 1)), forKey: "c")
            server.failsWrites = true
            let write = try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            #expect(write.isPending)
            #expect(await notes.outbox.pendingWrites.first?.lastFailure == .answered)
            try await body(server, notes, clock)
        }
    }

    @Test(.timeLimit(.minutes(2))) func readsMainAnswersLeaveAWriteMainRefusedToItsBackoff() async throws {
        // Given a server that answers reads but answers every write 503, and a write it refused once
        try await withAWriteMainRefused { server, notes, clock in
            #expect(server.writeRequestCount == 1)

            // When main answers ten reads before the backoff ends
            for _ in 0..<10 {
                let read = try await notes.get(KeyQuery("c"), operation: .main)
                #expect(read.value.text == "sea")
                await notes.waitForReplays()
            }

            // Then no write was sent again: the write waits for its backoff
            #expect(server.writeRequestCount == 1)
            #expect(await notes.outbox.pendingWrites.first?.attempts == 1)

            // When the backoff ends, the timer sends it once; still refused, it waits twice as long
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(60))
            await poll { server.writeRequestCount >= 2 }
            await notes.waitForReplays()
            #expect(server.writeRequestCount == 2)
            #expect(await notes.outbox.pendingWrites.first?.notBefore == clock.now().addingTimeInterval(120))

            // And once the server takes writes, a sync delivers it at once
            server.failsWrites = false
            #expect(await notes.sync().delivered == 1)
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one"])
        }
    }

    /// A write that replaced one main refused (a delete of a key whose put got 503) took that write's backoff but not
    /// the kind of its failure: main answering a read sent it at once, to a main known to refuse writes.
    @Test(.timeLimit(.minutes(2))) func aWriteReplacingOneMainRefusedKeepsItsBackoffWhenMainAnswers() async throws {
        // Given a server that answers reads but answers every write 503, and a put of a it refused once
        try await withAWriteMainRefused { server, notes, _ in
            // When a delete of a replaces the put, and main answers a read before the backoff ends
            try await notes.delete(KeyQuery("a"))
            #expect(await notes.outbox.pendingWrites.map(\.operation) == [.delete])
            #expect(try await notes.get(KeyQuery("c"), operation: .main).value.text == "sea")
            await notes.waitForReplays()

            // Then the delete was not sent: it waits for the backoff of the put it replaced
            #expect(server.writeRequestCount == 1)
            #expect(await notes.outbox.pendingWrites.first?.lastFailure == .answered)
        }
    }
}
