import Foundation
import LoopbackServer
import Strata
import StrataMemory
import StrataOffline
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataJSONFile

/// Damaged and foreign files in an outbox folder: set aside or reported, never a crash, never a lost open.
struct OutboxDamageTests {
    /// An intact JSON value that is not a record.
    struct Foreign: Codable, Sendable {
        var sequence: UInt64
        var colour: String
    }

    @Test func foreignAndNonsensicalRecordsAreSetAside() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        server.isDown = true
        // Both repositories' clocks stand still at the same date: the write's backoff never ends, so the reopened
        // repository's own replay cannot send it before the sync does
        do {
            let notes = try await notesRepository(server, folder: folder, configuration: standingStill())
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            await notes.close()
        }
        // Another program writes a foreign value and a record without a key into the records store
        do {
            let records = folder.appendingPathComponent(Outbox.recordsFolderName)
            let foreign = try JSONFileDataSource<Foreign>(folder: records)
            _ = try await foreign.put(Foreign(sequence: 99, colour: "red"), in: KeyQuery("00000000000000000099"))
        }
        do {
            let records = folder.appendingPathComponent(Outbox.recordsFolderName)
            let keyless = try JSONFileDataSource<PendingWrite>(folder: records)
            let record = PendingWrite(
                sequence: 50,
                key: "",
                operation: .put,
                value: Data("{}".utf8),
                idempotencyKey: "x",
                createdAt: Date()
            )
            _ = try await keyless.put(record, in: KeyQuery("00000000000000000050"))
        }

        server.isDown = false
        let notes = try await notesRepository(server, folder: folder, configuration: standingStill())
        #expect(await notes.outbox.unreadableRecords.map(\.sequence) == [99])
        let setAside = await notes.outbox.pendingWrites.filter(\.isSetAside)
        #expect(setAside.map(\.sequence) == [50])
        #expect(setAside.first?.lastError?.contains("no key") == true)
        let report = await notes.sync()
        #expect(report.delivered == 1 && report.setAside == 1)
        // New writes are numbered after everything the folder holds
        server.isDown = true
        let next = try await notes.put(Note(id: "c", text: "sea", version: 1), in: KeyQuery("c"))
        if case .pending(let record) = next.status { #expect(record.sequence == 100) }
        try await notes.outbox.drop(99)
        #expect(await notes.outbox.unreadableRecords.isEmpty)
        try await notes.outbox.dropAll()
        #expect(await notes.outbox.count == 0)
        await notes.close()
        await server.stop()
    }

    /// Queues one write of `a` (record 1) in an outbox in `folder` while `server` is down, and closes it.
    private static func queueOneWrite(_ server: NotesServer, folder: URL) async throws {
        server.isDown = true
        let notes = try await notesRepository(server, folder: folder, configuration: standingStill())
        try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
        await notes.close()
    }

    @Test func droppingAFileThatClaimsAnotherRecordsNumberLeavesThatRecord() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // Given record 1, and a foreign file stored as number 7 that says it is number 1
        try await Self.queueOneWrite(server, folder: folder)
        do {
            let records = folder.appendingPathComponent(Outbox.recordsFolderName)
            let foreign = try JSONFileDataSource<Foreign>(folder: records)
            _ = try await foreign.put(Foreign(sequence: 1, colour: "red"), in: KeyQuery("00000000000000000007"))
        }

        // When the outbox opens and the unreadable file is dropped by the number it is listed under
        do {
            let outbox = try await Outbox.open(folder: folder)
            let listed = await outbox.unreadableRecords.map(\.sequence)
            #expect(listed == [7])
            for sequence in listed.compactMap(\.self) { try await outbox.drop(sequence) }
        }

        // Then the foreign file is gone and the queued write is still there
        let outbox = try await Outbox.open(folder: folder)
        #expect(await outbox.unreadableRecords.isEmpty)
        #expect(await outbox.pendingWrites.map(\.key) == ["a"])
        await server.stop()
    }

    /// A process killed between a record's rename and its index line leaves a whole record the index lacks. The next
    /// open (in this boot) queues it, so it is sent before a later write of its key. Before, it was left out: the
    /// later write went to main and was acknowledged, and after a reboot the rebuilt records brought the old record
    /// back and sent it over the newer write.
    @Test(.enabled(if: StoreSession.currentBootID != nil, "no boot identifier: no session to leave open"))
    func aRecordItsIndexLacksAfterAKillIsSentBeforeALaterWriteOfItsKey() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let records = folder.appendingPathComponent(Outbox.recordsFolderName)
        let session = records.appendingPathComponent("session")
        // Given record 1 (a = one) whose index line a kill took, the session left open in this boot
        try await Self.queueOneWrite(server, folder: folder)
        let closed = try #require(
            try? String(contentsOf: session, encoding: .utf8),
            "a durable records store records its session"
        )
        let file = try #require(recordFile(1, in: folder))
        let bytes = try Data(contentsOf: file)
        do {
            let store = try JSONFileDataSource<PendingWrite>(folder: records)
            _ = try store.removeValue(forKey: "00000000000000000001")
        }
        try bytes.write(to: file)
        let open = closed.replacingOccurrences(of: " clean", with: " open")
        try open.write(to: session, atomically: true, encoding: .utf8)

        // When the repository opens with main up, a is written again (two), and after a reboot its records are rebuilt
        server.isDown = false
        do {
            let notes = try await notesRepository(server, folder: folder)
            _ = await notes.sync()
            try await notes.put(Note(id: "a", text: "two", version: 2), in: KeyQuery("a"))
            _ = await notes.sync()
            await notes.close()
        }
        try "another-boot open".write(to: session, atomically: true, encoding: .utf8)
        let rebooted = try await notesRepository(server, folder: folder)
        _ = await rebooted.sync()
        await rebooted.close()

        // Then main got one, then two, and nothing after
        #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one", "two"])
        await server.stop()
    }

    @Test func aRecordStoredUnderAnotherNumberIsSetAsideNotReplayedAgainAndAgain() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // Given record 1, and a record of key b numbered 2 but stored as number 5
        try await Self.queueOneWrite(server, folder: folder)
        do {
            let records = folder.appendingPathComponent(Outbox.recordsFolderName)
            let planted = try JSONFileDataSource<PendingWrite>(folder: records)
            let record = PendingWrite(
                sequence: 2,
                key: "b",
                operation: .put,
                value: try JSONEncoder().encode(Note(id: "b", text: "planted", version: 1)),
                idempotencyKey: "planted",
                createdAt: Date()
            )
            _ = try await planted.put(record, in: KeyQuery("00000000000000000005"))
        }

        // When the outbox is replayed twice, reopened between
        server.isDown = false
        for _ in 0..<2 {
            let notes = try await notesRepository(server, folder: folder, configuration: standingStill())
            _ = await notes.sync()
            await notes.close()
        }

        // Then only the real write reached main, and the planted one is listed under its file's number
        #expect(server.appliedNotes(forKey: "a").count == 1)
        #expect(server.appliedNotes(forKey: "b").isEmpty)
        let outbox = try await Outbox.open(folder: folder)
        #expect(await outbox.unreadableRecords.map(\.sequence) == [5])
        #expect(await outbox.count == 0)
        await server.stop()
    }

    @Test func aFileWithoutAValueIsSetAsideAndTheOutboxStillOpens() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // Given record 1, and an intact file numbered 3 (JSON without a checksum line, as earlier stores wrote)
        // that holds the key and dates of an entry but no value
        try await Self.queueOneWrite(server, folder: folder)
        let key = "00000000000000000003"
        do {
            let records = folder.appendingPathComponent(Outbox.recordsFolderName)
            let empty = try JSONFileDataSource<String?>(folder: records)
            _ = try await empty.put(nil, in: KeyQuery(key))
        }
        let entries = folder.appendingPathComponent(Outbox.recordsFolderName).appendingPathComponent("entries")
        let files = try #require(FileManager.default.enumerator(at: entries, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" }
        let planted = try #require(
            files.first { (try? String(contentsOf: $0, encoding: .utf8))?.contains(key) == true }
        )
        try Data(#"{"key":"\#(key)","storedAt":0,"sequence":1}"#.utf8).write(to: planted)

        // When the outbox opens
        let outbox = try await Outbox.open(folder: folder)

        // Then the file is listed as unreadable under its number, and the queued write is kept
        #expect(await outbox.unreadableRecords.map(\.sequence) == [3])
        #expect(await outbox.pendingWrites.map(\.key) == ["a"])
        await server.stop()
    }

    /// A backoff that does not grow took `Int.max` steps to compute the pause (it never returned); one whose
    /// maximum is 292 years or more trapped converting it to nanoseconds.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: [
            RetryPlugin.Backoff(initial: .seconds(1), multiplier: 1, maximum: .seconds(60), jitter: .none),
            RetryPlugin.Backoff(initial: .seconds(1), maximum: .seconds(Int64.max)),
        ]
    )
    func aRecordWithAHugeAttemptCountIsReplayedWithoutHanging(backoff: RetryPlugin.Backoff) async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // Given a record that says main was asked Int.max times, and a backoff that does not grow or is the largest
        do {
            let records = folder.appendingPathComponent(Outbox.recordsFolderName)
            let planted = try JSONFileDataSource<PendingWrite>(folder: records)
            let record = PendingWrite(
                sequence: 1,
                key: "a",
                operation: .put,
                value: try JSONEncoder().encode(Note(id: "a", text: "one", version: 1)),
                idempotencyKey: "worn",
                attempts: .max,
                createdAt: Date()
            )
            _ = try await planted.put(record, in: KeyQuery("00000000000000000001"))
        }
        var configuration = standingStill()
        configuration.backoff = backoff

        // When main fails its replay with a retryable error
        server.isDown = true
        let notes = try await notesRepository(server, folder: folder, configuration: configuration)
        let report = await notes.sync()

        // Then the replay ends, and the write waits for its next attempt
        #expect(report.remaining == 1)
        let record = await notes.outbox.pendingWrites.first
        #expect(record?.attempts == .max)
        #expect(record?.notBefore != nil)
        await notes.close()
        await server.stop()
    }

    /// A file numbered `UInt64.max` (no number after it) made the outbox refuse to open: every queued write was
    /// stuck. The outbox opens and replays it; only new writes are refused while it is there.
    @Test func aRecordWithTheLargestNumberLeavesTheOutboxOpenAndItsWritesQueued() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // Given a queued write, and a record numbered UInt64.max planted beside it
        try await queueWhileDown([Note(id: "a", text: "one", version: 1)], on: server, folder: folder)
        let record = PendingWrite(
            sequence: .max,
            key: "b",
            operation: .put,
            value: try JSONEncoder().encode(Note(id: "b", text: "two", version: 1)),
            idempotencyKey: "last",
            createdAt: Date(),
            // Waiting for its pause, as the queued write is (the repository's clock stands still at a fresh
            // manual clock's date): the outbox's own replay at open sends neither, and the sync below sends both.
            notBefore: ManualClock().now().addingTimeInterval(1)
        )
        try await plant(record, in: folder)

        // When the outbox opens
        let notes = try await notesRepository(server, folder: folder, configuration: standingStill())

        // Then both writes are queued, a new one is refused with a typed error, and once they are sent numbers
        // are handed out again
        #expect(await notes.outbox.pendingWrites.map(\.sequence) == [1, .max])
        let refused = await #expect(throws: StrataError.self) {
            try await notes.put(Note(id: "c", text: "three", version: 1), in: KeyQuery("c"))
        }
        #expect(refused?.code == .corrupt)
        server.isDown = false
        let report = await notes.sync()
        #expect(report.delivered == 2)
        server.isDown = true
        let later = try await notes.put(Note(id: "c", text: "three", version: 1), in: KeyQuery("c"))
        guard case .pending(let queued) = later.status else {
            Issue.record("expected a queued write, got \(later.status)")
            return
        }
        #expect(queued.sequence == 1)
        await notes.close()
        await server.stop()
    }

    /// Once the record numbered `UInt64.max` is gone, numbers are handed out again after the largest left: a number
    /// of a record dropped meanwhile (still in the outbox's order) is not listed twice when a new record takes it.
    @Test func numbersHandedOutAgainAreNeverListedTwice() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // Given queued writes 1 and 2, and a record numbered UInt64.max planted beside them
        try await queueWhileDown(
            [Note(id: "a", text: "one", version: 1), Note(id: "b", text: "two", version: 1)],
            on: server,
            folder: folder
        )
        let last = PendingWrite(
            sequence: .max,
            key: "z",
            operation: .delete,
            value: nil,
            idempotencyKey: "last",
            createdAt: Date(),
            notBefore: ManualClock().now().addingTimeInterval(1)
        )
        try await plant(last, in: folder)
        let notes = try await notesRepository(server, folder: folder, configuration: standingStill())

        // When 2 and then UInt64.max are dropped, and a new write is queued
        try await notes.outbox.drop(2)
        try await notes.outbox.drop(.max)
        server.isDown = true
        _ = try await notes.put(Note(id: "c", text: "three", version: 1), in: KeyQuery("c"))

        // Then it takes number 2, listed once
        #expect(await notes.outbox.pendingWrites.map(\.sequence) == [1, 2])
        #expect(await notes.outbox.pendingWrites.map(\.key) == ["a", "c"])
        await notes.close()
        await server.stop()
    }

    /// A write that took the largest number and is still on its way to main holds it: before, the next write started
    /// numbering again after the largest record, took the same number, and the record queued last replaced the
    /// other's file — an acknowledged write lost.
    @Test(.timeLimit(.minutes(2)))
    func aWriteUnderWayHoldsTheLargestNumber() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // Given a record numbered one below the largest, planted by another program
        let planted = PendingWrite(
            sequence: .max - 1,
            key: "z",
            operation: .delete,
            value: nil,
            idempotencyKey: "planted",
            createdAt: Date(),
            notBefore: ManualClock().now().addingTimeInterval(1)
        )
        try await plant(planted, in: folder)
        let notes = try await notesRepository(server, folder: folder, configuration: standingStill())
        // and a write of a, numbered UInt64.max, on its way to main (held there)
        let (arrived, release) = (Gate(), Gate())
        server.holdNextWrite(arrived: arrived, release: release)
        let first = Task { try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a")) }
        await arrived.wait()

        // When a write of b comes while main is down
        server.isDown = true
        let refused = await #expect(throws: StrataError.self) {
            try await notes.put(Note(id: "b", text: "two", version: 1), in: KeyQuery("b"))
        }

        // Then it is refused with a typed error before it reaches the cache, and the write of a, queued once main
        // fails it, keeps its number and its record
        #expect(refused?.code == .corrupt)
        #expect((try? await notes.get(KeyQuery("b"), operation: .cache)) == nil)
        release.open()
        #expect(try await first.value.isPending)
        #expect(await notes.outbox.pendingWrites.map(\.key) == ["z", "a"])
        #expect(await notes.outbox.pendingWrites.map(\.sequence) == [.max - 1, .max])
        await notes.close()
        await server.stop()
    }

    /// Queues three writes in an outbox in `folder` while `server` is down, then cuts every record file short.
    private static func queueThreeDamagedWrites(_ server: NotesServer, folder: URL) async throws {
        server.isDown = true
        do {
            let notes = try await notesRepository(server, folder: folder)
            for index in 0..<3 {
                try await notes.put(Note(id: "k\(index)", text: "x", version: index), in: KeyQuery("k\(index)"))
            }
            await notes.close()
        }
        let entries = folder.appendingPathComponent(Outbox.recordsFolderName).appendingPathComponent("entries")
        let files = try #require(FileManager.default.enumerator(at: entries, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" }
        #expect(files.count == 3)
        for file in files { try Data("{\"sequ".utf8).write(to: file) }
    }

    @Test func damagedRecordFilesAreReportedAndMovedAside() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        try await Self.queueThreeDamagedWrites(server, folder: folder)

        let reports = Locked<[StrataError]>([])
        let outbox = try await Outbox.open(folder: folder) { report in reports.withLock { $0.append(report) } }
        #expect(await outbox.count == 0)
        #expect(reports.withLock { $0.count } == 3)
        #expect(reports.withLock { $0.allSatisfy { $0.code == .corrupt } })
        await server.stop()
    }

    @Test func anOfflineRepositoryReportsDamagedRecordFilesToItsDiagnostics() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        try await Self.queueThreeDamagedWrites(server, folder: folder)

        // When a repository opens the outbox
        let reports = Locked<[StrataError]>([])
        let notes = try await NotesRepository.open(
            main: server.source,
            cache: MemoryDataSource<Note>(),
            outboxFolder: folder,
            configuration: standingStill()
        ) { report in reports.withLock { $0.append(report) } }

        // Then each write lost with its file is reported, not gone silently
        #expect(await notes.outbox.count == 0)
        #expect(reports.withLock { $0.count } == 3)
        #expect(reports.withLock { $0.allSatisfy { $0.code == .corrupt } })
        await notes.close()
        await server.stop()
    }

    @Test(.enabled(if: immutableFilesWork))
    func aWriteIsQueuedWhenTheRecordItReplacesCannotBeRemoved() async throws {
        try await withNotes(configuration: standingStill(coalescing: true)) { server, notes in
            // Given a queued write of a whose file cannot be removed
            server.isDown = true
            try await notes.put(Note(id: "a", text: "one", version: 1), in: KeyQuery("a"))
            let file = try #require(recordFile(1, in: notes.outbox.folder))
            #expect(setImmutable(file, true))
            defer { setImmutable(file, false) }

            // When a second write of a replaces it (coalescing)
            let second = try await notes.put(Note(id: "a", text: "two", version: 2), in: KeyQuery("a"))

            // Then the second write is queued (it was stored), and the first stays queued before it
            #expect(second.isPending)
            #expect(await notes.outbox.pendingWrites(forKey: "a").map(\.sequence) == [1, 2])

            // And main, up again, receives both in order and ends with the second
            setImmutable(file, false)
            server.isDown = false
            _ = await notes.sync()
            #expect(server.appliedNotes(forKey: "a").map { $0?.text } == ["one", "two"])
            #expect(await notes.outbox.count == 0)
        }
    }

    /// A `dropAll()` that cannot remove one file (immutable) forgets the writes whose files it removed, then throws:
    /// only the write whose file is still there stays queued — before, every write stayed queued in memory, a replay
    /// sent the dropped ones to main, or, main refusing them (503), wrote their files back for every later launch.
    @Test(.enabled(if: immutableFilesWork), arguments: [true, false])
    func aDropAllThatFailsPartWayForgetsTheWritesItRemoved(mainTakesWrites: Bool) async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        // Given writes of a and b queued while main was down, the file of b cannot be removed
        let queued = [Note(id: "a", text: "one", version: 1), Note(id: "b", text: "two", version: 1)]
        try await queueWhileDown(queued, on: server, folder: folder)
        let notes = try await notesRepository(server, folder: folder, configuration: standingStill())
        let file = try #require(recordFile(2, in: folder))
        #expect(setImmutable(file, true))
        defer { setImmutable(file, false) }

        // When the app drops every write
        await #expect(throws: StrataError.self) { try await notes.outbox.dropAll() }

        // Then only b, whose file is still there, stays queued
        #expect(await notes.outbox.pendingWrites.map(\.key) == ["b"])
        #expect(await notes.outbox.isPending(key: "a") == false)

        // And a replay never sends a, nor writes its file back when main refuses writes
        server.isDown = false
        server.failsWrites = !mainTakesWrites
        _ = await notes.sync()
        #expect(server.appliedNotes(forKey: "a").isEmpty)
        #expect(recordFile(1, in: folder) == nil)
        await notes.close()
        await server.stop()
    }

    /// A record file that says delete and carries a value (planted, or damaged) is set aside when the outbox opens —
    /// before, it loaded as sound: reads took the key for deleted, while a replay sent main a put of the value.
    @Test func aDeleteRecordThatCarriesAValueIsSetAsideNeverSentAsAPut() async throws {
        // Given a record file of a delete of a that carries a value, planted before the outbox opens
        let value = try JSONEncoder().encode(Note(id: "a", text: "planted", version: 1))
        try await withNotes(plantingFirst: [
            PendingWrite(
                sequence: 1,
                key: "a",
                operation: .delete,
                value: value,
                idempotencyKey: "x",
                createdAt: Date()
            )
        ]) { server, notes in
            // When the outbox replays
            let report = await notes.sync()

            // Then the record is set aside, and main received nothing
            #expect(report.setAside == 1 && report.delivered == 0, "\(report)")
            #expect(server.applied.isEmpty)
            let setAside = await notes.outbox.pendingWrites
            #expect(setAside.map(\.isSetAside) == [true])
            #expect(setAside.first?.lastError?.contains("carries a value") == true)
        }
    }

    @Test func aFolderOfAnotherStoreKindIsRefused() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        _ = try JSONFileDataSource<Note>(folder: folder)
        await #expect { try await Outbox.open(folder: folder) } throws: {
            ($0 as? StrataError)?.code == .invalidArgument
        }
    }
}
