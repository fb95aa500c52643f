import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataNetwork
import StrataOffline
import StrataTestSupport
import Testing

/// Holds main's answers to reads, once armed, until released. The answer is read from the server first, so a read
/// held here began before whatever the test does meanwhile.
private final class HeldReads: StrataPlugin {
    private let gate = AsyncGate(isOpen: true)

    /// One element for each answer held.
    var arrivals: AsyncStream<Void> { gate.arrivals }

    /// Holds the answers of the reads that follow.
    func arm() { gate.close() }

    /// Lets the held answers go, and holds no more.
    func release() { gate.open() }

    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        let answer = try await next()
        if call.method.isRead { await gate.enter() }
        return answer
    }
}

/// A main read that began before an offline write does not put main's older answer back into the cache.
struct OfflineWriteBackTests {
    @Test(.timeLimit(.minutes(2))) func aReadMainAnswersAfterAnOfflineWriteLeavesTheWriteInTheCache() async throws {
        // Given main holding "one" for a, and a read of a that main answered but that is held before the cache
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        server.setNote(try JSONEncoder().encode(Note(id: "a", text: "one", version: 1)), forKey: "a")
        let held = HeldReads()
        let notes = try await OfflineRepository.open(
            main: server.source.plugins([held]),
            cache: MemoryDataSource<Note>(),
            outboxFolder: folder,
            configuration: .init(replaysOnTimer: false)
        )
        held.arm()
        var arrivals = held.arrivals.makeAsyncIterator()
        let read = Task { try await notes.get(KeyQuery("a")) }
        _ = await arrivals.next()

        // When a is written while main fails writes, and then the read's answer arrives
        server.isDown = true
        let write = try await notes.put(Note(id: "a", text: "two", version: 2), in: KeyQuery("a"))
        #expect(write.isPending)
        held.release()
        #expect(try await read.value.value.text == "one")

        // Then the cache keeps the write, before and after the outbox drains
        #expect(try await notes.repository.get(KeyQuery("a"), operation: .cache).text == "two")
        server.isDown = false
        // (The replay a main answer starts may deliver it first, when the write's failure looked unreachable.)
        _ = await notes.sync()
        #expect(await notes.outbox.count == 0)
        let after = try await notes.get(KeyQuery("a"))
        #expect(after.value.text == "two")
        #expect(!after.isPending)
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["two"])
        await notes.close()
        await server.stop()
    }

    /// Before, a read of the key through the repository (or a list read) while the delete waited wrote main's value
    /// back into the cache, which served it again once main had taken the delete.
    @Test(.timeLimit(.minutes(2))) func aReadWhileADeleteWaitsLeavesMainsOlderValueOutOfTheCache() async throws {
        try await withNotes(configuration: standingStill()) { server, notes in
            // Given main holding a, and a delete of a that waits in the outbox (main takes no writes for now)
            server.setNote(try JSONEncoder().encode(Note(id: "a", text: "one", version: 1)), forKey: "a")
            server.failsWrites = true
            #expect(try await notes.delete(KeyQuery("a")).isPending)

            // When the key is read through the repository, main answering with its value
            #expect(try await notes.repository.get(KeyQuery("a"), operation: .cacheSync).text == "one")

            // Then the cache does not take main's value, before or after main takes the delete
            await #expect(throws: StrataError.self) {
                try await notes.repository.get(KeyQuery("a"), operation: .cache)
            }
            server.failsWrites = false
            #expect(await notes.sync().delivered == 1)
            await #expect(throws: StrataError.self) { try await notes.get(KeyQuery("a")) }
        }
    }

    /// Another repository over the same cache store (another screen's, with its own main) reads the key while the
    /// delete waits: before, its write-back put main's value back, since the offline repository's held delete was
    /// a write of that repository alone.
    @Test(.timeLimit(.minutes(2))) func anotherRepositoryOverTheCacheLeavesMainsOlderValueOutOfItToo() async throws {
        try await withNotes(configuration: standingStill()) { server, notes in
            // Given main holding a, and a delete of a that waits in the outbox
            server.setNote(try JSONEncoder().encode(Note(id: "a", text: "one", version: 1)), forKey: "a")
            server.failsWrites = true
            #expect(try await notes.delete(KeyQuery("a")).isPending)

            // When another repository over the same cache store reads the key, main answering with its value
            let other = CacheRepository(main: server.source, cache: notes.repository.cache)
            #expect(try await other.get(KeyQuery("a"), operation: .cacheSync).text == "one")

            // Then the cache does not take main's value
            await #expect(throws: StrataError.self) { try await notes.repository.cache.get(KeyQuery("a")) }
        }
    }

    /// Before, only the cache half of a write counted as a write of the repository: a read that met main before the
    /// write reached it wrote that older value back after the cache half, and the cache kept it.
    @Test(.timeLimit(.minutes(2))) func aReadWhileADeleteIsOnItsWayToMainLeavesMainsOlderValueOutOfTheCache()
        async throws
    {
        try await withNotes { server, notes in
            // Given main holding a, and a delete of a whose request main holds before taking it
            server.setNote(try JSONEncoder().encode(Note(id: "a", text: "one", version: 1)), forKey: "a")
            let (arrived, release) = (Gate(), Gate())
            server.holdNextWrite(arrived: arrived, release: release)
            let delete = Task { try await notes.delete(KeyQuery("a")) }
            await arrived.wait()

            // When the key is read meanwhile, main answering with its value, and then main takes the delete
            #expect(try await notes.repository.get(KeyQuery("a"), operation: .cacheSync).text == "one")
            release.open()
            #expect(try await delete.value == .saved)

            // Then the cache does not hold main's older value
            await #expect(throws: StrataError.self) { try await notes.get(KeyQuery("a")) }
        }
    }

    /// The writes an earlier run left queued hold their keys too, from the moment the repository is made, and a
    /// closed repository holds none.
    @Test(.timeLimit(.minutes(2))) func aWriteAnEarlierRunQueuedKeepsMainsOlderValueOutOfTheCache() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        server.setNote(try JSONEncoder().encode(Note(id: "a", text: "one", version: 1)), forKey: "a")
        try await queueWhileDown([Note(id: "a", text: "two", version: 2)], on: server, folder: folder)
        server.isDown = false
        server.failsWrites = true
        let notes = try await notesRepository(server, folder: folder, configuration: standingStill())

        #expect(try await notes.repository.get(KeyQuery("a"), operation: .mainSync).text == "one")
        await #expect(throws: StrataError.self) { try await notes.repository.get(KeyQuery("a"), operation: .cache) }

        await notes.close()
        #expect(try await notes.repository.get(KeyQuery("a"), operation: .mainSync).text == "one")
        #expect(try await notes.repository.get(KeyQuery("a"), operation: .cache).text == "one")
        await server.stop()
    }

    /// Before, a list read went through the repository alone: a key whose delete waited read as main's value, and
    /// one whose put waited as main's older value once the cache had dropped its copy.
    @Test(.timeLimit(.minutes(2))) func aListReadAnswersEachKeyWithAWaitingWriteFromThatWrite() async throws {
        try await withNotes(configuration: standingStill()) { server, notes in
            // Given a, b and c saved, then a deleted and b written again while main takes no writes
            for id in ["a", "b", "c"] {
                #expect(try await notes.put(Note(id: id, text: "one", version: 1), in: KeyQuery(id)).isPending == false)
            }
            server.failsWrites = true
            #expect(try await notes.delete(KeyQuery("a")).isPending)
            #expect(try await notes.put(Note(id: "b", text: "two", version: 2), in: KeyQuery("b")).isPending)
            // and the cache's copy of b gone (evicted, say)
            try await notes.repository.delete(KeyQuery("b"), operation: .cache)

            // When a list names them, then b and c only
            let error = await #expect(throws: StrataError.self) { try await notes.getAll(IdsQuery(["a", "b", "c"])) }
            let values = try await notes.getAll(IdsQuery(["b", "c"]))

            // Then each key with a waiting write reads as that write: a missing, b's new text
            #expect(error?.code == .notFound)
            #expect(error?.partialValues(as: Note.self)?.map { $0?.text } == [nil, "two", "one"])
            #expect(values.map(\.text) == ["two", "one"])
        }
    }

    /// Before, a list read asked main for a key whose first attempt was on its way, and read main's older value where
    /// `get` read the cache's, the attempt's.
    @Test(.timeLimit(.minutes(1))) func aListReadAnswersAKeyWhoseFirstAttemptIsOnItsWayFromTheCache() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let main = HeldSource()
        let notes = try await OfflineRepository.open(
            main: main,
            cache: MemoryDataSource<Note>(),
            outboxFolder: folder,
            configuration: .init(replaysOnTimer: false)
        )
        // Given a and b saved, then a first write of a again on its way to main (held there)
        for id in ["a", "b"] {
            #expect(try await notes.put(Note(id: id, text: "one", version: 1), in: KeyQuery(id)).isPending == false)
        }
        let first = Task { try await notes.put(Note(id: "a", text: "held", version: 2), in: KeyQuery("a")) }
        await main.arrived.wait()

        // When a list names a and b, read from main, and a is read alone
        let values = await Result { try await notes.getAll(IdsQuery(["a", "b"]), operation: .mainSync) }
        let single = await Result { try await notes.get(KeyQuery("a"), operation: .mainSync).value }
        main.release.open()
        #expect(try await first.value.isPending == false)

        // Then a reads as its write on the way in both, and b as main's
        #expect(try values.get().map(\.text) == ["held", "one"])
        #expect(try single.get().text == "held")
        await notes.close()
    }

    /// Before, a stream showed what its read found while a write waited: main's value for a key whose delete waited,
    /// main's older value for one whose put waited once the cache had dropped its copy, each marked pending.
    @Test(.timeLimit(.minutes(2))) func aStreamShowsAWaitingDeleteAsNotFoundAndAWaitingPutAsItsValue() async throws {
        try await withNotes(configuration: standingStill()) { server, notes in
            // Given main holding a and b, a's delete and b's new text waiting, and the cache's copy of b gone
            for id in ["a", "b"] {
                server.setNote(try JSONEncoder().encode(Note(id: id, text: "one", version: 1)), forKey: id)
            }
            server.failsWrites = true
            #expect(try await notes.delete(KeyQuery("a")).isPending)
            #expect(try await notes.put(Note(id: "b", text: "two", version: 2), in: KeyQuery("b")).isPending)
            try await notes.repository.delete(KeyQuery("b"), operation: .cache)

            // When each is streamed, the stream's read finding main's value
            var deleted = notes.stream(KeyQuery("a"), operation: .cacheSync, bufferingNewest: 16).makeAsyncIterator()
            var shownDeleted = await deleted.next()
            if shownDeleted?.isLoading == true { shownDeleted = await deleted.next() }
            var rewritten = notes.stream(KeyQuery("b"), operation: .cacheSync, bufferingNewest: 16).makeAsyncIterator()
            var shownRewritten = await rewritten.next()
            if shownRewritten?.isLoading == true { shownRewritten = await rewritten.next() }

            // Then a shows as not found, and b as its waiting text, pending
            guard case .error(let error, _) = shownDeleted else {
                Issue.record("a showed \(String(describing: shownDeleted))")
                return
            }
            #expect((error as? StrataError)?.code == .notFound)
            #expect(shownRewritten?.value?.text == "two")
            #expect(shownRewritten?.isPending == true)
        }
    }
}
