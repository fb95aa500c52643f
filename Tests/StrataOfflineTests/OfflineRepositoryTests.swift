import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataNetwork
import StrataOffline
import StrataTesting
import Testing

/// Offline writes against a real loopback server that goes down and comes back.
struct OfflineRepositoryTests {
    @Test func writesWhileDownArePendingAndReachMainInOrderOnSync() async throws {
        // Given a server that is down, and a clock that stands still (the first write's backoff must not run out
        // on a slow machine before the next write, which would replay it and count a second attempt)
        try await withNotes(configuration: .init(replaysOnTimer: false, clock: ManualClock())) { server, notes in
            server.isDown = true

            // When the app writes a twice and b once
            let first = try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            let second = try await notes.put(Note(id: "a", text: "two", version: 2), in: KeyQuery("a"))
            let other = try await notes.put(Note(id: "b", text: "bee", version: 1), in: KeyQuery("b"))

            // Then each write is pending, queued in order, and reads see the newest one
            #expect(first.isPending && second.isPending && other.isPending)
            #expect(await notes.outbox.pendingWrites.map(\.key) == ["a", "a", "b"])
            let pendingRecord = try #require(await notes.outbox.pendingWrites.first)
            #expect(pendingRecord.attempts == 1)
            #expect(pendingRecord.lastError?.contains("503") == true)
            let read = try await notes.get(KeyQuery("a"))
            #expect(read.value.text == "two" && read.isPending)
            #expect(server.applied.isEmpty)

            // When the server comes back and the app syncs
            server.isDown = false
            let report = await notes.sync()

            // Then main has every write, once, in order, each with its idempotency key
            #expect(report == SyncReport(delivered: 3, resolvedByRemote: 0, remaining: 0, setAside: 0))
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one", "two"])
            #expect(server.appliedNotes(forKey: "b").map { $0?.text } == ["bee"])
            #expect(server.applied.map(\.idempotencyKey) == [first, second, other].map(Self.idempotencyKey))
            #expect(await notes.outbox.count == 0)
            #expect(try await notes.get(KeyQuery("a")).isPending == false)
        }
    }

    @Test func aWriteMainTakesIsSavedWithAnIdempotencyKey() async throws {
        try await withNotes { server, notes in

            let write = try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            let deleted = try await notes.delete(KeyQuery("a"))

            #expect(write.status == .saved && deleted == .saved)
            #expect(server.applied.map(\.method) == ["PUT", "DELETE"])
            #expect(server.applied.allSatisfy { $0.idempotencyKey?.isEmpty == false })
            #expect(Set(server.applied.compactMap(\.idempotencyKey)).count == 2)
            #expect(await notes.outbox.count == 0)
        }
    }

    @Test func aNonRetryableErrorIsThrownAndNothingIsQueued() async throws {
        // Given a server that refuses the next write of a with a 409, which is not retryable
        try await withNotes { server, notes in
            server.scriptConflict(key: "a")

            // Then the write fails as a CacheSync write would, and the outbox stays empty
            await #expect { try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a")) } throws: {
                ($0 as? StrataError)?.code == .conflict
            }
            #expect(await notes.outbox.count == 0)
        }
    }

    @Test func aWriteBehindAQueuedOneWaitsForItEvenWhenMainIsUp() async throws {
        // Given a queued write of a
        try await withNotes { server, notes in
            server.isDown = true
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))

            // When main is up again and the app writes a and b
            server.isDown = false
            let behind = try await notes.put(Note(id: "a", text: "two", version: 2), in: KeyQuery("a"))
            let independent = try await notes.put(Note(id: "b", text: "bee", version: 1), in: KeyQuery("b"))

            // Then the second write of a joins the queue, b goes straight to main (which replays a after it)
            #expect(behind.isPending)
            #expect(independent.status == .saved)
            _ = await notes.sync()
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one", "two"])
        }
    }

    @Test func coalescingKeepsTheLastWriteAndADeleteCancelsQueuedPuts() async throws {
        try await withNotes(configuration: standingStill(coalescing: true)) { server, notes in
            server.isDown = true

            // With coalescing, three writes of a leave one record: the last
            for version in 1...3 {
                try await notes.put(Note(id: "a", text: "v\(version)", version: version), in: KeyQuery("a"))
            }
            #expect(await notes.outbox.pendingWrites(forKey: "a").map(\.operation) == [.put])
            // A delete after puts of b leaves only the delete
            try await notes.put(Note(id: "b", text: "bee", version: 1), in: KeyQuery("b"))
            try await notes.put(Note(id: "b", text: "bee2", version: 2), in: KeyQuery("b"))
            let deleted = try await notes.delete(KeyQuery("b"))
            #expect(deleted.isPending)
            #expect(await notes.outbox.pendingWrites(forKey: "b").map(\.operation) == [.delete])
            await #expect { try await notes.get(KeyQuery("b")) } throws: { ($0 as? StrataError)?.code == .notFound }

            server.isDown = false
            _ = await notes.sync()
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["v3"])
            #expect(server.applied.filter { $0.key == "b" }.map(\.method) == ["DELETE"])
        }
    }

    @Test func aWriteThatReplacesOneOnItsWayReplacesItWhenThatSendFails() async throws {
        try await withASecondWriteWhileTheFirstIsOnItsWay { server, notes, second, release, replay in
            guard case .pending(let queued) = second.status else {
                Issue.record("The second write was not queued: \(second.status)")
                return
            }
            // The one on its way stays while it is on its way
            #expect(await notes.outbox.pendingWrites(forKey: "a").count == 2)

            // When that send fails
            server.isDown = true
            release.open()
            let report = await replay.value
            await notes.waitForReplays()

            // Then the second write replaced it, and kept its backoff: the replay the second write started sent
            // nothing to a main known to be down
            #expect(report.delivered == 0)
            #expect(await notes.outbox.pendingWrites(forKey: "a").map(\.sequence) == [queued.sequence])
            #expect(await notes.outbox.pendingWrites(forKey: "a").first?.notBefore != nil)
            #expect(server.writeRequestCount == 2)

            // And main, up again, receives the second write only
            server.isDown = false
            _ = await notes.sync()
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["two"])
            #expect(await notes.outbox.count == 0)
        }
    }

    @Test func aWriteOnItsWayThatMainTakesIsNotReplacedAfterwards() async throws {
        try await withASecondWriteWhileTheFirstIsOnItsWay { server, notes, _, release, replay in
            // When main takes the first
            release.open()
            _ = await replay.value
            _ = await notes.sync()

            // Then main received both, in order
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one", "two"])
            #expect(await notes.outbox.count == 0)
        }
    }

    @Test func withoutCoalescingADeleteStillCancelsTheQueuedPutsOfItsKey() async throws {
        try await withNotes(configuration: standingStill(coalescing: false)) { server, notes in
            server.isDown = true
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            try await notes.put(Note(id: "a", text: "two", version: 2), in: KeyQuery("a"))
            #expect(await notes.outbox.pendingWrites(forKey: "a").count == 2)
            try await notes.delete(KeyQuery("a"))
            #expect(await notes.outbox.pendingWrites(forKey: "a").map(\.operation) == [.delete])
        }
    }

    @Test func theStreamShowsPendingThenSaved() async throws {
        try await withNotes { server, notes in
            server.isDown = true
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))

            // (A slow consumer may skip `loading`: the stream keeps the newest response.)
            var responses = notes.stream(KeyQuery("a"), operation: .cache).makeAsyncIterator()
            var pending = await responses.next()
            if pending?.isLoading == true { pending = await responses.next() }
            #expect(pending?.value?.text == "one" && pending?.isPending == true)

            server.isDown = false
            _ = await notes.sync()
            let saved = await responses.next()
            #expect(saved?.value?.text == "one" && saved?.isPending == false)
            #expect(saved.map { "\($0)" } == "value(Note(id: \"a\", text: \"one\", version: 1), memory)")
        }
    }

    @Test func queuedWritesSurviveAReopen() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        server.isDown = true
        // Both repositories' clocks stand still at the same date: the writes' backoff never ends, so the reopened
        // repository's own replay cannot send them before the sync does
        do {
            let notes = try await notesRepository(server, folder: folder, configuration: standingStill())
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            try await notes.delete(KeyQuery("b"))
            await notes.close()
        }
        server.isDown = false
        let reopened = try await notesRepository(server, folder: folder, configuration: standingStill())
        #expect(await reopened.outbox.pendingWrites.map(\.operation) == [.put, .delete])
        let report = await reopened.sync()
        #expect(report.delivered == 2 && report.remaining == 0)
        #expect(server.applied.map(\.method) == ["PUT", "DELETE"])
        await reopened.close()
        await server.stop()
    }

    /// The idempotency key of a pending write.
    static func idempotencyKey(_ write: OfflineWrite<Note>) -> String? {
        if case .pending(let record) = write.status { record.idempotencyKey } else { nil }
    }

    /// Queues a write of a while main is down, starts a replay whose send of it the server holds on its way, and
    /// writes a again meanwhile (coalescing); then runs `body` with the second write, the gate that releases the
    /// held send, and the replay.
    private func withASecondWriteWhileTheFirstIsOnItsWay(
        _ body: (NotesServer, NotesRepository, OfflineWrite<Note>, Gate, Task<SyncReport, Never>) async throws -> Void
    ) async throws {
        try await withNotes(configuration: standingStill(coalescing: true)) { server, notes in
            server.isDown = true
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            server.isDown = false
            let (arrived, release) = (Gate(), Gate())
            server.holdNextWrite(arrived: arrived, release: release)
            let replay = Task { await notes.sync() }
            await arrived.wait()
            let second = try await notes.put(Note(id: "a", text: "two", version: 2), in: KeyQuery("a"))
            try await body(server, notes, second, release, replay)
        }
    }
}
