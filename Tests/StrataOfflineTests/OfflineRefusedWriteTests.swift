import Foundation
import LoopbackServer
import Strata
import StrataNetwork
import StrataOffline
import StrataTestSupport
import Testing

/// A write the cache took first and main then refused for good leaves the cache: reads that ask the cache never
/// answer a value main does not have, and a stream never shows one as taken by main.
struct OfflineRefusedWriteTests {
    /// Before, a write whose first attempt main refused (a conflict, thrown to the caller) stayed in the cache: reads
    /// that ask the cache answered it, and a stream of the key showed it as taken by main, then stayed there.
    @Test(.timeLimit(.minutes(1)))
    func aFirstAttemptMainRefusesLeavesTheCache() async throws {
        // Given main's value of a, shown by a stream, and a write of a that main will refuse
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let notes = try await notesRepository(server, folder: folder)
        server.setNote(try JSONEncoder().encode(Note(id: "a", text: "remote", version: 2)), forKey: "a")
        var responses = notes.stream(KeyQuery("a"), bufferingNewest: 16).makeAsyncIterator()
        var shown = await responses.next()
        while shown?.isLoading == true { shown = await responses.next() }
        #expect(shown?.value?.text == "remote")
        server.scriptConflict(key: "a")

        // When the write is made
        let error = await strataError {
            _ = try await notes.put(Note(id: "a", text: "local", version: 1), in: KeyQuery("a"))
        }

        // Then it fails, the cache does not hold it, and a read answers main's value
        #expect(error?.code == .conflict, "\(String(describing: error))")
        let cached = await strataError { _ = try await notes.repository.get(KeyQuery("a"), operation: .cache) }
        #expect(cached?.code == .notFound, "\(String(describing: cached))")
        #expect(try await notes.get(KeyQuery("a")).value.text == "remote")
        // And the stream shows the refused value only as waiting, then main's value again
        while let response = await responses.next() {
            if response.value?.text == "local" { #expect(response.isPending, "the refused value shown as taken") }
            if response.value?.text == "remote" {
                #expect(!response.isPending)
                break
            }
        }
        await notes.close()
        await server.stop()
    }

    /// Before, a queued write the app dropped while a replay sent it, which main then refused for good, left its
    /// copy in the cache: the key still counted as pending (the send on its way) when the write was set aside.
    @Test(.timeLimit(.minutes(1)))
    func aWriteDroppedOnItsWayThatMainRefusesLeavesTheCache() async throws {
        struct Refused: Error {}
        var configuration = NotesRepository.Configuration.sentBySync
        configuration.conflictResolver = ConflictResolver { _ in throw Refused() }
        try await withNotes(configuration: configuration) { server, notes in
            // Given a queued write of a, on its way in a replay that main holds and will refuse
            server.failsWrites = true
            _ = try await notes.put(Note(id: "a", text: "dropped", version: 1), in: KeyQuery("a"))
            server.failsWrites = false
            let record = try #require(await notes.outbox.pendingWrites.first)
            server.scriptConflict(key: "a")
            let (arrived, release) = (Gate(), Gate())
            server.holdNextWrite(arrived: arrived, release: release)
            let replay = Task { await notes.sync() }
            await arrived.wait()

            // When the app drops it, and main refuses it
            try await notes.outbox.drop(record.sequence)
            release.open()
            _ = await replay.value

            // Then the cache does not hold it
            let cached = await strataError { _ = try await notes.repository.get(KeyQuery("a"), operation: .cache) }
            #expect(cached?.code == .notFound, "\(String(describing: cached))")
        }
    }

    /// Before, a queued write the app took back (`Outbox.drop`) stayed in the cache, and a stream of its key showed it
    /// as saved: main never got it (found in review).
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aWriteTheAppTakesBackLeavesTheCache(dropsAll: Bool) async throws {
        try await withNotes { server, notes in
            // Given main's value of a, and a queued write of a shown waiting by a stream
            server.setNote(try JSONEncoder().encode(Note(id: "a", text: "remote", version: 2)), forKey: "a")
            var responses = notes.stream(KeyQuery("a"), bufferingNewest: 16).makeAsyncIterator()
            server.failsWrites = true
            let write = try await notes.put(Note(id: "a", text: "taken back", version: 3), in: KeyQuery("a"))
            while let response = await responses.next(), !(response.isPending && response.value?.text == "taken back") {
            }

            // When the app takes it back
            let record = try #require(await notes.outbox.pendingWrites.first)
            #expect(write.isPending)
            if dropsAll { try await notes.outbox.dropAll() } else { try await notes.outbox.drop(record.sequence) }

            // Then the cache does not hold it (it holds nothing, or main's value once the stream has read it again),
            // and the stream shows main's value, never the write as saved
            do {
                let cached = try await notes.repository.get(KeyQuery("a"), operation: .cache)
                #expect(cached.text == "remote", "the cache holds \(cached.text)")
            } catch {
                #expect((error as? StrataError)?.code == .notFound, "\(error)")
            }
            while let response = await responses.next() {
                if response.value?.text == "taken back" { #expect(response.isPending, "the dropped write shown saved") }
                if response.value?.text == "remote", !response.isPending { break }
            }
            server.failsWrites = false
        }
    }

    /// Dropping a write main refused (set aside) touches no cache: the cache holds what main took since (found in
    /// review: the drop took the saved value out of the cache).
    @Test(.timeLimit(.minutes(1)))
    func droppingASetAsideWriteKeepsTheCachesLaterValue() async throws {
        // Given a write of a set aside, and a later write of a that main took
        let (server, notes, folder) = try await OfflineConflictTests.conflicted(.keepLocal)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        server.scriptConflict(key: "a", times: notes.configuration.maxConflicts + 1)
        #expect(await notes.sync().setAside == 1)
        #expect(try await notes.put(Note(id: "a", text: "saved", version: 5), in: KeyQuery("a")).status == .saved)
        let setAside = try #require(await notes.outbox.pendingWrites.first)

        // When the app drops the set-aside record
        try await notes.outbox.drop(setAside.sequence)

        // Then the cache still holds the saved value
        #expect(try await notes.repository.get(KeyQuery("a"), operation: .cache).text == "saved")
        await notes.close()
        await server.stop()
    }

    /// Dropping a key's newest queued write puts the cache back to the write before it, which main is still to get
    /// and then takes (found in review: the cache kept the dropped value, and showed it saved once the older write
    /// reached main).
    @Test(.timeLimit(.minutes(1)))
    func droppingTheNewestOfTwoQueuedWritesPutsTheCacheBackToTheOlder() async throws {
        try await withNotes { server, notes in
            // Given two queued writes of a
            server.failsWrites = true
            #expect(try await notes.put(Note(id: "a", text: "first", version: 1), in: KeyQuery("a")).isPending)
            #expect(try await notes.put(Note(id: "a", text: "second", version: 2), in: KeyQuery("a")).isPending)
            let newest = try #require(await notes.outbox.pendingWrites.last)

            // When the app drops the newest
            try await notes.outbox.drop(newest.sequence)

            // Then the cache holds the first, which main then takes
            #expect(try await notes.repository.get(KeyQuery("a"), operation: .cache).text == "first")
            server.failsWrites = false
            #expect(await notes.sync().delivered == 1)
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["first"])
            #expect(try await notes.repository.get(KeyQuery("a"), operation: .cache).text == "first")
        }
    }

    /// A write set aside while a later write of its key waits leaves the cache at that later write, which main is
    /// still to get; it then takes it.
    @Test(.timeLimit(.minutes(1)))
    func aWriteSetAsideBeforeALaterOneLeavesTheCacheAtTheLaterOne() async throws {
        // Given two queued writes of a, the first of which main will refuse until it is set aside
        let (server, notes, folder) = try await OfflineConflictTests.conflicted(.keepLocal)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        server.isDown = true
        #expect(try await notes.put(Note(id: "a", text: "later", version: 1), in: KeyQuery("a")).isPending)
        server.isDown = false
        server.scriptConflict(key: "a", times: notes.configuration.maxConflicts + 1)

        // When they are replayed
        let report = await notes.sync()

        // Then the first is set aside, the later one delivered, and the cache holds it
        #expect(report.setAside == 1 && report.delivered == 1, "\(report)")
        #expect(server.appliedNotes(forKey: "a").last??.text == "later")
        #expect(try await notes.repository.get(KeyQuery("a"), operation: .cache).text == "later")
        await notes.close()
        await server.stop()
    }
}
