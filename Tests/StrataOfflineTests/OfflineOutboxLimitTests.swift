import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataOffline
import StrataTestSupport
import StrataTesting
import Testing

/// The outbox keeps its records in memory: it takes at most its limits, and it serves one repository at a time.
struct OfflineOutboxLimitTests {
    /// A notes repository whose outbox, in `folder`, takes `limits`.
    private func notes(
        _ server: NotesServer,
        folder: URL,
        limits: Outbox.Limits,
        coalescing: Bool = false
    ) async throws -> NotesRepository {
        try await NotesRepository.open(
            main: server.source,
            cache: MemoryDataSource<Note>(),
            outboxFolder: folder,
            configuration: standingStill(coalescing: coalescing),
            outboxLimits: limits
        )
    }

    /// Runs `body` with a notes server that is down and a repository whose outbox, in a fresh folder where an
    /// earlier repository queued `queued`, takes `limits`; then closes both and removes the folder.
    private func whileDown(
        limits: Outbox.Limits,
        coalescing: Bool = false,
        queued: [Note] = [],
        _ body: (NotesServer, NotesRepository) async throws -> Void
    ) async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        if !queued.isEmpty { try await queueWhileDown(queued, on: server, folder: folder) }
        let repository = try await notes(server, folder: folder, limits: limits, coalescing: coalescing)
        server.isDown = true
        do {
            try await body(server, repository)
        } catch {
            await repository.close()
            await server.stop()
            throw error
        }
        await repository.close()
        await server.stop()
    }

    /// Before, an outbox took every write while main was down, each record and its value held in memory for as
    /// long as the outage lasted.
    /// Limits set through their properties are held to the initializer's floors: a limit of 0 writes set that way
    /// made the outbox refuse every write as full.
    @Test func limitsSetThroughTheirPropertiesKeepTheirFloors() {
        var limits = Outbox.Limits.default
        limits.maximumWrites = 0
        limits.maximumBytes = -1
        #expect(limits == Outbox.Limits(maximumWrites: 1, maximumBytes: 0))
        limits.maximumWrites = 5
        #expect(limits.maximumWrites == 5)
    }

    @Test func aFullOutboxRefusesTheNextWriteAndKeepsTheOthers() async throws {
        try await whileDown(limits: .init(maximumWrites: 2, maximumBytes: 1 << 20)) {
            (server, repository) async throws in

            // Given an outbox of two writes at most, holding two
            for id in ["a", "b"] {
                #expect(try await repository.put(Note(id: id, text: id, version: 1), in: KeyQuery(id)).isPending)
            }

            // When a third write fails at main
            let error = await #expect(throws: StrataError.self) {
                try await repository.put(Note(id: "c", text: "c", version: 1), in: KeyQuery("c"))
            }

            // Then it is refused as too large, naming the limit, and the queued writes are all still there
            #expect(error?.code == .tooLarge)
            #expect(error?.message.contains("is full") == true, "\(String(describing: error))")
            #expect(await repository.outbox.pendingWrites.map(\.key) == ["a", "b"])
            #expect(await repository.outbox.isPending(key: "c") == false)

            // And once main takes the queue, the outbox has room again
            server.isDown = false
            #expect(await repository.sync().delivered == 2)
            #expect(
                try await repository.put(Note(id: "c", text: "c", version: 1), in: KeyQuery("c")).isPending == false
            )
        }
    }

    /// Before, a write of a key that waits in the outbox reached the cache, then was refused by the full outbox: the
    /// cache kept a value main would never get.
    @Test func aRefusedWriteOfAWaitingKeyLeavesTheCacheAtItsLatestQueuedWrite() async throws {
        try await whileDown(limits: .init(maximumWrites: 2, maximumBytes: 1 << 20)) { (_, repository) async throws in
            #expect(try await repository.put(Note(id: "a", text: "a1", version: 1), in: KeyQuery("a")).isPending)
            #expect(try await repository.put(Note(id: "b", text: "b1", version: 1), in: KeyQuery("b")).isPending)

            let error = await #expect(throws: StrataError.self) {
                try await repository.put(Note(id: "a", text: "a2", version: 2), in: KeyQuery("a"))
            }

            #expect(error?.code == .tooLarge)
            let cached = try await repository.repository.get(KeyQuery("a"), operation: .cache)
            #expect(cached.text == "a1")
        }
    }

    /// Before, a write of a key with nothing queued that the full outbox refused stayed in the cache: reads that ask
    /// the cache answered a value main would never get.
    @Test func aRefusedWriteOfAKeyWithNothingQueuedLeavesTheCache() async throws {
        try await whileDown(limits: .init(maximumWrites: 1, maximumBytes: 1 << 20)) { (_, repository) async throws in
            #expect(try await repository.put(Note(id: "b", text: "b1", version: 1), in: KeyQuery("b")).isPending)

            let error = await #expect(throws: StrataError.self) {
                try await repository.put(Note(id: "a", text: "a1", version: 1), in: KeyQuery("a"))
            }

            #expect(error?.code == .tooLarge)
            let cached = await strataError { _ = try await repository.repository.get(KeyQuery("a"), operation: .cache) }
            #expect(cached?.code == .notFound, "\(String(describing: cached))")
        }
    }

    /// Before, a write queued behind its key's first attempt (on its way to main, nothing of the key queued) that the
    /// full outbox refused left its value in the cache: main got the first attempt's value, the cache kept one main
    /// would never get.
    @Test(.timeLimit(.minutes(2)))
    func aRefusedWriteBehindAFirstAttemptLeavesTheCacheAtThatAttempt() async throws {
        try await whileDown(limits: .init(maximumWrites: 1, maximumBytes: 1 << 20)) {
            (server, repository) async throws in
            // Given a full outbox, and a first write of a on its way to main (held there)
            #expect(try await repository.put(Note(id: "b", text: "b1", version: 1), in: KeyQuery("b")).isPending)
            server.isDown = false
            let (arrived, release) = (Gate(), Gate())
            server.holdNextWrite(arrived: arrived, release: release)
            let first = Task { try await repository.put(Note(id: "a", text: "a1", version: 1), in: KeyQuery("a")) }
            await arrived.wait()

            // When a second write of a is refused by the outbox
            let error = await #expect(throws: StrataError.self) {
                try await repository.put(Note(id: "a", text: "a2", version: 2), in: KeyQuery("a"))
            }

            // Then the cache shows the first attempt's value, which main then takes
            #expect(error?.code == .tooLarge)
            #expect(try await repository.repository.get(KeyQuery("a"), operation: .cache).text == "a1")
            release.open()
            #expect(try await first.value.isPending == false)
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["a1"])
            #expect(try await repository.repository.get(KeyQuery("a"), operation: .cache).text == "a1")
        }
    }

    /// A write that replaces queued ones (last write wins) frees their room first: a full outbox still takes it.
    @Test func aWriteThatReplacesQueuedOnesFitsAFullOutbox() async throws {
        try await whileDown(limits: .init(maximumWrites: 1, maximumBytes: 1 << 20), coalescing: true) {
            (_, repository) async throws in

            for version in 1...3 {
                let note = Note(id: "a", text: "v\(version)", version: version)
                #expect(try await repository.put(note, in: KeyQuery("a")).isPending)
            }

            #expect(await repository.outbox.pendingWrites.count == 1)
            let queued = await repository.outbox.pendingWrites(forKey: "a").compactMap(\.value)
            #expect(queued.map { String(decoding: $0, as: UTF8.self).contains("v3") } == [true])
            await #expect(throws: StrataError.self) {
                try await repository.put(Note(id: "b", text: "b", version: 1), in: KeyQuery("b"))
            }
        }
    }

    /// The bytes of queued values are bounded too: one large value does not fit what the others leave.
    @Test func aValuePastTheByteLimitIsRefused() async throws {
        try await whileDown(limits: .init(maximumWrites: 100, maximumBytes: 1_000)) { (_, repository) async throws in

            #expect(try await repository.put(Note(id: "a", text: "short", version: 1), in: KeyQuery("a")).isPending)
            let large = Note(id: "b", text: String(repeating: "x", count: 2_000), version: 1)
            let error = await #expect(throws: StrataError.self) { try await repository.put(large, in: KeyQuery("b")) }

            #expect(error?.code == .tooLarge)
            #expect(await repository.outbox.pendingWrites.map(\.key) == ["a"])
            // A delete holds no value: it still fits
            #expect(try await repository.delete(KeyQuery("c")).isPending)
        }
    }

    /// An outbox left over its limits by an earlier run (a larger limit then) opens with every record: they are
    /// writes main has not taken.
    @Test func anOutboxOverItsLimitsOpensWithEveryRecord() async throws {
        let queued = (1...3).map { Note(id: "n\($0)", text: "t", version: 1) }
        try await whileDown(
            limits: .init(maximumWrites: 1, maximumBytes: 1 << 20),
            queued: queued
        ) { (server, repository) async throws in
            #expect(await repository.outbox.count == 3)
            await #expect(throws: StrataError.self) {
                try await repository.put(Note(id: "x", text: "x", version: 1), in: KeyQuery("x"))
            }
            server.isDown = false
            #expect(await repository.sync().delivered == 3)
        }
    }

    /// Before, a second repository over the same outbox replayed its records too, from its own timer: main got
    /// writes twice, and the two repositories' cache writes of a key took turns neither saw.
    @Test func aSecondRepositoryOverOneOutboxIsRefusedUntilTheFirstCloses() async throws {
        try await whileDown(limits: .default) { (server, first) async throws in
            #expect(try await first.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a")).isPending)

            // When a second repository is made over the same outbox
            let second = NotesRepository(
                repository: CacheRepository(main: server.source, cache: MemoryDataSource<Note>()),
                outbox: first.outbox,
                configuration: standingStill()
            )

            // Then it refuses writes, and sends nothing the outbox holds
            let error = await #expect(throws: StrataError.self) {
                try await second.put(Note(id: "b", text: "two", version: 1), in: KeyQuery("b"))
            }
            #expect(error?.code == .alreadyInUse)
            server.isDown = false
            #expect(await second.sync().delivered == 0)
            #expect(server.applied.isEmpty)

            // And once the first is closed, a new repository serves it, and the closed one refuses writes
            await first.close()
            let third = NotesRepository(
                repository: CacheRepository(main: server.source, cache: MemoryDataSource<Note>()),
                outbox: first.outbox,
                configuration: standingStill()
            )
            #expect(await third.sync().delivered == 1)
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one"])
            await #expect(throws: StrataError.self) {
                try await first.put(Note(id: "c", text: "three", version: 1), in: KeyQuery("c"))
            }
            await second.close()
            await third.close()
        }
    }
}
