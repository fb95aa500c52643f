import Foundation
import LoopbackServer
import Strata
import StrataJSONFile
import StrataOffline
import Testing

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

    @Test func damagedRecordFilesAreReportedAndMovedAside() async throws {
        let server = try await NotesServer.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        server.isDown = true
        do {
            let notes = try await notesRepository(server, folder: folder)
            for index in 0..<3 {
                try await notes.put(Note(id: "k\(index)", text: "x", version: index), in: KeyQuery("k\(index)"))
            }
            await notes.close()
        }
        // Every record file is cut short
        let entries = folder.appendingPathComponent(Outbox.recordsFolderName).appendingPathComponent("entries")
        let files = try #require(FileManager.default.enumerator(at: entries, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" }
        #expect(files.count == 3)
        for file in files { try Data("{\"sequ".utf8).write(to: file) }

        let reports = Locked<[StrataError]>([])
        let outbox = try await Outbox.open(folder: folder) { report in reports.withLock { $0.append(report) } }
        #expect(await outbox.count == 0)
        #expect(reports.withLock { $0.count } == 3)
        #expect(reports.withLock { $0.allSatisfy { $0.code == .corrupt } })
        await server.stop()
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
