import Foundation
import LoopbackServer
import Strata
import StrataOffline
import StrataTestSupport
import StrataTesting
import Testing

/// Each key's writes reach main in the order they were made, whatever a replay meets on its way.
struct OfflineOrderTests {
    @Test(.timeLimit(.minutes(2)))
    func aFirstAttemptThatFailsDuringAReplayIsSentBeforeTheWriteQueuedBehindIt() async throws {
        try await withNotes(configuration: standingStill()) { server, notes in
            // Given a queued write of a
            server.isDown = true
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            server.isDown = false
            // and a first write of b on its way to main (held there), with a second write of b queued behind it
            let (firstArrived, releaseFirst) = (Gate(), Gate())
            server.holdNextWrite(arrived: firstArrived, release: releaseFirst)
            let first = Task { try await notes.put(Note(id: "b", text: "x1", version: 1), in: KeyQuery("b")) }
            await firstArrived.wait()
            let second = try await notes.put(Note(id: "b", text: "x2", version: 2), in: KeyQuery("b"))
            #expect(second.isPending)
            await notes.waitForReplays()

            // When a replay that already listed both queued writes sends a's (held there), and meanwhile the first
            // write of b fails and is queued before the second
            let (replayArrived, releaseReplay) = (Gate(), Gate())
            server.holdNextWrite(arrived: replayArrived, release: releaseReplay)
            let replay = Task { await notes.sync() }
            await replayArrived.wait()
            server.isDown = true
            releaseFirst.open()
            #expect(try await first.value.isPending)
            server.isDown = false
            releaseReplay.open()
            _ = await replay.value
            _ = await notes.sync()

            // Then main received b's writes in order, and holds the newest, as the cache does
            #expect(server.appliedNotes(forKey: "b").map { $0?.text } == ["x1", "x2"])
            #expect(try await notes.get(KeyQuery("b"), operation: .cache).value.text == "x2")
            #expect(await notes.outbox.count == 0)
        }
    }

    /// A write queued behind a first attempt that main then refuses for good (a 409, thrown to its caller) is replayed
    /// once that attempt ends, as after one main took — before, no replay was started and no timer set (the queued
    /// write had never been tried): the acknowledged write waited for the next sync, main read or launch.
    @Test(.timeLimit(.minutes(2)))
    func aWriteQueuedBehindAFirstAttemptMainRefusesIsReplayed() async throws {
        try await withNotes(configuration: standingStill()) { server, notes in
            // Given a first write of a on its way to main (held there), and a second write of a queued behind it
            let (arrived, release) = (Gate(), Gate())
            server.holdNextWrite(arrived: arrived, release: release)
            server.scriptConflict(key: "a")
            let first = Task { try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a")) }
            await arrived.wait()
            let second = try await notes.put(Note(id: "a", text: "two", version: 1), in: KeyQuery("a"))
            #expect(second.isPending)
            // When main refuses the first for good
            release.open()
            await #expect(throws: StrataError.self) { _ = try await first.value }
            await notes.waitForReplays()
            // Then the second reached main without a sync
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["two"])
            #expect(await notes.outbox.count == 0)
        }
    }

    /// A write whose record the outbox's store kept although its put threw (the record file in place, its index
    /// line refused) is queued, not reported failed: a record left behind was replayed at a later launch after the
    /// key's later writes, which the failure had let go first.
    @Test(.enabled(if: immutableFilesWork))
    func aRecordThePutLeftBehindIsQueuedNotReportedFailed() async throws {
        try await withNotes(configuration: standingStill()) { server, notes in
            // Given main down, and the outbox's index that cannot be appended to
            server.isDown = true
            let journal = notes.outbox.folder.appendingPathComponent(Outbox.recordsFolderName)
                .appendingPathComponent("index.journal")
            try #require(FileManager.default.fileExists(atPath: journal.path))
            #expect(setImmutable(journal, true))
            defer { setImmutable(journal, false) }

            // When a write of a is made, and then, the index writable again and main up, another
            let first = try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            setImmutable(journal, false)
            server.isDown = false
            let second = try await notes.put(Note(id: "a", text: "two", version: 2), in: KeyQuery("a"))
            _ = await notes.sync()

            // Then the first was queued, the second waited behind it, and main took them in order
            #expect(first.isPending)
            #expect(second.isPending)
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one", "two"])
        }
    }

    /// A write main refuses for good (a conflict past `maxConflicts`) whose set-aside mark cannot be saved stays
    /// queued, holding back the later writes of its key: set aside in this process only, it let them reach main
    /// first, and the next launch (whose file still held it as it was) replayed it after them.
    @Test(.enabled(if: immutableFilesWork))
    func aSetAsideMarkThatCannotBeSavedHoldsBackTheLaterWritesOfItsKey() async throws {
        var configuration = standingStill()
        configuration.maxConflicts = 0
        try await withNotes(configuration: configuration) { server, notes in
            // Given a queued write of a whose file cannot be changed, refused by main with a conflict
            server.isDown = true
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            let file = try #require(recordFile(1, in: notes.outbox.folder))
            #expect(setImmutable(file, true))
            defer { setImmutable(file, false) }
            server.isDown = false
            server.scriptConflict(key: "a")
            _ = await notes.sync()

            // When a later write of a comes
            let second = try await notes.put(Note(id: "a", text: "two", version: 2), in: KeyQuery("a"))

            // Then it waits behind the first, which is not set aside: main has taken neither
            #expect(second.isPending)
            #expect(server.appliedNotes(forKey: "a").isEmpty)
            #expect(await notes.outbox.pendingWrites(forKey: "a").map(\.isSetAside) == [false, false])
        }
    }

    @Test(.enabled(if: immutableFilesWork))
    func aDeliveredWriteWhoseRecordCannotBeRemovedHoldsBackTheLaterWritesOfItsKey() async throws {
        try await withNotes(configuration: standingStill()) { server, notes in
            // Given two queued writes of a, the first one's file cannot be removed
            server.isDown = true
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            try await notes.put(Note(id: "a", text: "two", version: 2), in: KeyQuery("a"))
            let file = try #require(recordFile(1, in: notes.outbox.folder))
            #expect(setImmutable(file, true))
            defer { setImmutable(file, false) }

            // When main is up and the outbox replays
            server.isDown = false
            _ = await notes.sync()

            // Then main took the first write, which stays queued, and the second waits behind it (sent now, it
            // would be followed by the first again at the next replay)
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one"])
            #expect(await notes.outbox.pendingWrites(forKey: "a").map(\.sequence) == [1, 2])

            // When the file can be removed again, the next replay sends the first again (main knows its idempotency
            // key and does not apply it twice), then the second
            setImmutable(file, false)
            _ = await notes.sync()
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one", "two"])
            #expect(server.duplicateCount == 1)
            #expect(await notes.outbox.count == 0)
        }
    }

    @Test func theTimerWaitsForTheFirstWriteOfAKeyNotForALaterOneWithAShorterBackoff() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let clock = ManualClock()
        // Given two queued writes of a: the first waits 5 minutes, the second (behind it) 1 second
        for (sequence, wait) in [(UInt64(1), 300.0), (2, 1)] {
            let record = PendingWrite(
                sequence: sequence,
                key: "a",
                operation: .put,
                value: try JSONEncoder().encode(Note(id: "a", text: "v\(sequence)", version: 1)),
                idempotencyKey: "write-\(sequence)",
                attempts: 1,
                createdAt: clock.now(),
                notBefore: clock.now().addingTimeInterval(wait)
            )
            try await plant(record, in: folder)
        }

        // When a repository with a timer opens the outbox
        let backoff = RetryPlugin.Backoff(initial: .seconds(1), maximum: .seconds(600), jitter: .none)
        let notes = try await notesRepository(
            server,
            folder: folder,
            configuration: .init(backoff: backoff, clock: clock)
        )

        // Then the timer waits for the first write's 5 minutes: the second cannot go before it, and a timer set
        // to its 1 second would find nothing to send and fire again at once, until the 5 minutes ended
        await clock.waitForSleepers(1)
        #expect(clock.sleepCalls == [.seconds(300)])
        #expect(server.writeRequestCount == 0)
        await notes.close()
        await server.stop()
    }
}
