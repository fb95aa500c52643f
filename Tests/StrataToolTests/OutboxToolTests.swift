import Foundation
import Strata
import StrataOffline
import StrataTestSupport
import Testing

/// The `strata` binary over an offline outbox folder (StrataOffline).
struct OutboxToolTests {
    /// An outbox in `folder` holding two queued writes, added with the outbox's repository while main fails.
    static func outbox(in folder: TemporaryFolder) async throws -> String {
        let url = folder.url.appendingPathComponent("notes.outbox")
        // (In a scope of its own: the outbox is free once the repository is gone.)
        do {
            let notes = try await OfflineRepository.open(
                main: FailingNotes(),
                cache: FailingNotes(failing: false),
                outboxFolder: url,
                configuration: .init(replaysOnTimer: false)
            )
            try await notes.put("one", in: KeyQuery("a"))
            try await notes.delete(KeyQuery("b"))
            await notes.close()
        }
        // The tool refuses an outbox in use, and the folder is free only once the last task of the repository has
        // ended: that is waited for (30 s guard against a hang; a fixed count of turns could run out first on a
        // loaded machine)
        let isFree = await poll(within: .seconds(30)) { () async -> Bool in
            (try? await Outbox.open(folder: url)) != nil
        }
        try #require(isFree, "the closed repository still holds its outbox")
        return url.path
    }

    @Test func inspectListsTheQueuedWritesOfAnOutbox() async throws {
        let folder = try TemporaryFolder()
        let outbox = try await Self.outbox(in: folder)

        let json = try await strata("inspect", outbox, "--json").json()

        #expect((json["store"] as? [String: Any])?["kind"] as? String == "outbox")
        let entries = try #require(json["entries"] as? [[String: Any]])
        #expect(Set(entries.compactMap { $0["key"] as? String }) == ["00000000000000000001", "00000000000000000002"])
        let writes = entries.compactMap { $0["write"] as? [String: Any] }.sorted {
            ($0["sequence"] as? Int ?? 0) < ($1["sequence"] as? Int ?? 0)
        }
        #expect(writes.map { $0["key"] as? String } == ["a", "b"])
        #expect(writes.map { $0["operation"] as? String } == ["put", "delete"])
        #expect(writes.map { $0["attempts"] as? Int } == [1, 1])
        #expect(writes.allSatisfy { ($0["lastError"] as? String)?.contains("offline") == true })
        #expect(writes.allSatisfy { $0["setAside"] as? Bool == false })
        #expect(writes.allSatisfy { $0["lastFailure"] as? String == "unreachable" })
        #expect(writes.allSatisfy { $0["expectedVersion"] is NSNull })
        let table = try await strata("inspect", outbox)
        #expect(table.status == 0)
        #expect(table.output.contains("offline outbox"))
        let rows = table.output.split(separator: "\n").filter { $0.contains("pending") }
        #expect(rows.count == 2)
        #expect(rows.first?.contains("put") == true && rows.first?.contains("offline") == true)
        #expect(rows.allSatisfy { $0.contains("pending (main unreachable)") })
        let verified = try await strata("verify", outbox)
        #expect(verified.status == 0)
    }

    @Test(arguments: [
        ["--max-count", "0"], ["--max-age", "0"], ["--max-size", "1"], ["--dry-run", "--max-count", "0"],
    ])
    func pruneRefusesAnOutboxAndDropsNoQueuedWrite(options: [String]) async throws {
        // Given an outbox with two queued writes, which main has not taken yet
        let folder = try TemporaryFolder()
        let outbox = try await Self.outbox(in: folder)
        let before = try FolderSnapshot(URL(fileURLWithPath: outbox))

        // When prune is asked to cut it down
        let run = try await strata(arguments: ["prune", outbox] + options)

        // Then it refuses (a queued write is not a cache entry) and the records are untouched
        #expect(run.status == 1)
        #expect(run.errors.contains("offline outbox"), "\(run.errors)")
        #expect(try FolderSnapshot(URL(fileURLWithPath: outbox)) == before)
    }

    @Test(arguments: [["--max-count", "0"], ["--max-age", "0"]])
    func pruneRefusesAnOutboxsRecordsFolderAsItRefusesTheOutbox(options: [String]) async throws {
        // Given an outbox with two queued writes, and its records folder, which inspect names as the store's path
        let folder = try TemporaryFolder()
        let outbox = try await Self.outbox(in: folder)
        let before = try FolderSnapshot(URL(fileURLWithPath: outbox))

        // When prune is given the records folder (a JSON-file store by its own marker) instead of the outbox
        let records = try await strata(arguments: ["prune", outbox + "/records"] + options + ["--json"])
        let whole = try await strata(arguments: ["prune", outbox] + options + ["--json"])

        // Then it refuses as it refuses the outbox, and no queued write is dropped
        #expect(records.status == 1)
        let error = try #require(try records.json()["error"] as? [String: Any], "\(records.output)")
        let wholeError = try #require(try whole.json()["error"] as? [String: Any], "\(whole.output)")
        #expect(error["code"] as? String == "unsupportedStore")
        #expect(error["code"] as? String == wholeError["code"] as? String)
        #expect((error["message"] as? String)?.contains("offline outbox") == true, "\(error)")
        #expect(try FolderSnapshot(URL(fileURLWithPath: outbox)) == before)
        let inspected = try await strata("inspect", outbox + "/records", "--json").json()
        #expect((inspected["store"] as? [String: Any])?["kind"] as? String == "outbox")
    }

    @Test func aFolderWithoutMarkerIsStillNotAStore() async throws {
        let folder = try TemporaryFolder()
        let outbox = try await Self.outbox(in: folder)
        try FileManager.default.removeItem(atPath: outbox + "/.strata-store")

        let run = try await strata("inspect", outbox)

        #expect(run.status != 0)
        #expect(run.errors.contains("not a Strata store"))
    }
}

/// A source of strings that fails every call with a retryable network error (`failing`), or keeps them in memory.
final class FailingNotes: DataSource, Sendable {
    private let failing: Bool
    private let values = Locked<[String: String]>([:])

    init(failing: Bool = true) { self.failing = failing }

    private func check() throws {
        if failing { throw StrataError(.network, "offline") }
    }

    func get(_ query: any Query) async throws -> String {
        try check()
        guard let key = (query as? any KeyedQuery)?.key, let value = values.withLock({ $0[key] }) else {
            throw StrataError.notFound()
        }
        return value
    }

    func getAll(_ query: any Query) async throws -> [String] {
        try check(); return values.withLock { Array($0.values) }
    }

    func put(_ value: String, in query: any Query) async throws -> String {
        try check()
        if let key = (query as? any KeyedQuery)?.key { values.withLock { $0[key] = value } }
        return value
    }

    func putAll(_ values: [String], in query: any Query) async throws -> [String] { try check(); return values }

    func delete(_ query: any Query) async throws {
        try check()
        if let key = (query as? any KeyedQuery)?.key { _ = values.withLock { $0.removeValue(forKey: key) } }
    }
}
