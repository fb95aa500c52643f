import Foundation
import Strata
import StrataJSONFile
import StrataTestSupport
import Testing

/// The `strata` binary over a JSONFileDataSource folder.
struct JSONStoreToolTests {
    @Test func inspectDetectsAJSONFileStore() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.jsonStore(in: folder)

        let json = try await strata("inspect", store, "--json").json()

        #expect((json["store"] as? [String: Any])?["kind"] as? String == "json")
        let entries = try #require(json["entries"] as? [[String: Any]])
        #expect(entries.map { $0["key"] as? String } == ["grace", "ada", "old"])
        let summary = try #require(json["summary"] as? [String: Any])
        #expect(summary["count"] as? Int == 3)
        #expect(summary["expired"] as? Int == 1)

        let table = try await strata("inspect", store)
        #expect(table.status == 0)
        #expect(table.output.contains("JSON-file store"))
    }

    /// A folder of a file system that holds a sparse file of 5 EiB (tmpfs does; ext4 stops at 16 TiB), or `nil`.
    static let exabyteFolder: URL? = {
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let probe = shm.appendingPathComponent("strata-sparse-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: probe.path, contents: nil) else { return nil }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard let handle = try? FileHandle(forWritingTo: probe) else { return nil }
        defer { try? handle.close() }
        return (try? handle.truncate(atOffset: 5 << 60)) == nil ? nil : shm
    }()

    /// Two entry files made sparse and claiming 5 EiB each (their sum past `Int.max`): `inspect` and `prune` add
    /// their sizes saturating, and exit as they would, where the sum overflowed and the tool trapped.
    @Test(.enabled(if: exabyteFolder != nil))
    func absurdFileSizesDoNotOverflowTheTotals() async throws {
        let folder = try TemporaryFolder(in: try #require(Self.exabyteFolder))
        let store = try StoreFixtures.jsonStore(in: folder)
        let inspected = try await strata("inspect", store, "--json").json()
        let entries = try #require(inspected["entries"] as? [[String: Any]])
        let files = entries.compactMap { $0["file"] as? String }.prefix(2)
        try #require(files.count == 2)
        for file in files {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: store + "/" + file))
            defer { try? handle.close() }
            try handle.truncate(atOffset: 5 << 60)
        }

        let inspect = try await strata("inspect", store, "--json")
        let prune = try await strata("prune", store, "--max-size", "1", "--dry-run")

        #expect(inspect.status == 0 || inspect.status == 1, "\(inspect.status): \(inspect.errors)")
        #expect(prune.status == 0 || prune.status == 1, "\(prune.status): \(prune.errors)")
        #expect(!inspect.errors.contains("Fatal error") && !prune.errors.contains("Fatal error"))
    }

    @Test func verifyReportsAnUndecodableFileAndRepairMovesItAside() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.jsonStore(in: folder)
        let inspected = try await strata("inspect", store, "--json").json()
        let entries = try #require(inspected["entries"] as? [[String: Any]])
        let path = try #require(entries.first { $0["key"] as? String == "ada" }?["file"] as? String)
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: store + "/" + path))

        let run = try await strata("verify", store)

        #expect(run.status == 1)
        #expect(run.output.contains("ada"))
        #expect(FileManager.default.fileExists(atPath: store + "/" + path), "nothing moved without --repair")

        let repaired = try await strata("verify", store, "--repair", "--json").json()

        #expect(repaired["remainingCorrupt"] as? Int == 0)
        let shard = URL(fileURLWithPath: store + "/" + path).deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: shard).contains { $0.contains(".corrupt-") })
        #expect(try await strata("verify", store).status == 0)
    }

    /// Before, a repair that only rebuilt a torn index said it "moved the damaged files aside".
    @Test func repairOfATornIndexSaysItRebuiltTheIndexAndMovedNothing() async throws {
        // Given a sound store whose index ends in a torn record
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.jsonStore(in: folder)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: store + "/index.journal"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("P 1 2".utf8))
        try handle.close()

        // When verify --repair runs
        let run = try await strata("verify", store, "--repair")

        // Then it says what it did: the index rebuilt, no entry file moved
        #expect(run.output.contains("Repaired: moved no entry file aside; rebuilt the index"), "\(run.output)")
        #expect(!run.output.contains("moved the damaged files aside"), "\(run.output)")
        #expect(run.status == 0, "\(run.output)\(run.errors)")
    }

    @Test func clearRemovesTheStoresTemporariesAndKeepsCorruptCopiesAndTheIndex() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.jsonStore(in: folder)
        let shard = try #require(try folder.names(in: "json/entries").first)
        let entryFile = try #require(try folder.names(in: "json/entries/\(shard)").first { $0.hasSuffix(".json") })
        let corrupt = "\(entryFile).corrupt-20240101-000000"
        // Temporary files a crash left (of this version's form, and the earlier one's holding a sealed entry), a
        // user's files that only start like one or have its form and prove nothing, and a corrupt copy
        let paths = [
            "json/.strata-tmp-3a7c", "json/.tmp-left", "json/.tmp-cafe", "json/entries/\(shard)/\(corrupt)",
        ]
        for path in paths { try Data("x".utf8).write(to: folder.url.appendingPathComponent(path)) }
        try Data(contentsOf: folder.url.appendingPathComponent("json/entries/\(shard)/\(entryFile)"))
            .write(to: folder.url.appendingPathComponent("json/entries/\(shard)/.tmp-5b"))

        let run = try await strata("clear", store, "--yes")

        #expect(run.status == 0)
        let root = try folder.names(in: "json")
        #expect(!root.contains(".strata-tmp-3a7c"))
        #expect(root.contains(".tmp-left"), "a name the store does not make is never removed")
        #expect(root.contains(".tmp-cafe"), "a name of the earlier form whose contents prove nothing is never removed")
        #expect(root.contains("index.journal") && root.contains(".strata-store"), "the store stays usable")
        #expect(try folder.names(in: "json/entries/\(shard)") == [corrupt], "a corrupt copy is never deleted")
        let reopened = try JSONFileDataSource<[String: String]>(folder: folder.url.appendingPathComponent("json"))
        #expect(reopened.count == 0)
    }

    @Test func pruneAndClearGoThroughTheStoreAndLeaveForeignFiles() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.jsonStore(in: folder)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: store + "/notes.txt"))

        let dryRun = try await strata("prune", store, "--max-count", "1", "--dry-run")
        #expect(dryRun.output.contains("Would remove 2 entries"))
        let pruned = try await strata("prune", store, "--max-count", "1")
        #expect(pruned.status == 0)
        do {
            // Released before `clear`: a store holds its folder alone, and the tool would find it in use.
            let reopened = try JSONFileDataSource<[String: String]>(folder: URL(fileURLWithPath: store))
            #expect(reopened.sortedKeys() == ["grace"])
        }

        let cleared = try await strata("clear", store, "--yes", "--json").json()

        #expect(cleared["removedCount"] as? Int == 1)
        #expect(FileManager.default.fileExists(atPath: store + "/notes.txt"))
        #expect(try JSONFileDataSource<[String: String]>(folder: URL(fileURLWithPath: store)).count == 0)
    }
}

/// An app's JSON store whose encoder converts keys to snake case, as `strata` (with plain coders) meets it.
struct JSONStoreOtherCodersToolTests {
    struct Note: Codable, Sendable {
        var longTitle: String
    }

    /// Before, `verify` reported every entry as damaged and suggested `--repair`, and `verify --repair` over a torn
    /// index set every entry aside: the app reopened an empty store.
    @Test func verifyAndRepairLeaveAnAppsEntriesWrittenWithOtherCoders() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let coders = JSONFileDataSource<Note>.Configuration(
            folder: folder.url,
            makeEncoder: SnakeCaseCoders.makeEncoder,
            makeDecoder: SnakeCaseCoders.makeDecoder
        )
        do {
            let store = try JSONFileDataSource<Note>(configuration: coders)
            for index in 1...3 { try store.setValue(Note(longTitle: "t\(index)"), forKey: "k\(index)") }
        }

        #expect(try await strata("verify", folder.url.path).status == 0)
        // A torn index: the repair must rebuild it
        let index = folder.url.appendingPathComponent("index.journal")
        let handle = try FileHandle(forWritingTo: index)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("P 1 2".utf8))
        try handle.close()
        let repair = try await strata("verify", folder.url.path, "--repair")

        #expect(repair.status != 0)
        #expect(repair.errors.contains("other coders"), "\(repair.errors)")
        let names = FileManager.default.enumerator(atPath: folder.url.path)?.allObjects as? [String] ?? []
        #expect(!names.contains { $0.contains(".corrupt-") })
        #expect(try JSONFileDataSource<Note>(configuration: coders).count == 3)
    }

    /// An index planted as a sparse file larger than any index the store writes is damage, as the store takes it:
    /// `inspect` and `verify` report it, and `verify --repair` rebuilds the index from the entry files. Before, every
    /// command failed reading it ("File too large"), and the repair never ran.
    @Test func aHugeSparseIndexIsDamageTheRepairRebuilds() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.jsonStore(in: folder)
        let index = try FileHandle(forWritingTo: URL(fileURLWithPath: store + "/index.journal"))
        try index.truncate(atOffset: (1 << 30) + 1)
        try index.close()

        let inspect = try await strata("inspect", store, "--json")
        let verify = try await strata("verify", store)
        let repair = try await strata("verify", store, "--repair")

        #expect(inspect.status == 0, "\(inspect.errors)")
        #expect(inspect.output.contains("index.journal is too large"), "\(inspect.output)")
        #expect(verify.status != 0 && verify.output.contains("index.journal is too large"), "\(verify.output)")
        #expect(repair.status == 0, "\(repair.output) \(repair.errors)")
        let reopened = try JSONFileDataSource<[String: String]>(folder: URL(fileURLWithPath: store))
        #expect(reopened.count == 3)
    }
}

/// Writing commands run as another user than the store's owner.
struct StoreOwnerToolTests {
    /// Makes `nobody` (uid and gid 65534) the owner of the folder at `path` and everything in it.
    static func giveToNobody(_ path: String) throws {
        let chown = Process()
        chown.executableURL = URL(fileURLWithPath: "/bin/chown")
        chown.arguments = ["-R", "65534:65534", path]
        try chown.run()
        chown.waitUntilExit()
        try #require(chown.terminationStatus == 0)
    }

    /// Before, `sudo strata clear --yes <store>` replaced the JSON-file store's index with a file root owned, mode
    /// 0644: the app, running as its own user, could no longer open its store ("Permission denied").
    @Test(
        .enabled(if: geteuid() == 0, "chown needs root"),
        arguments: [["clear", "--yes"], ["prune", "--max-count", "1"]]
    )
    func aWritingCommandRefusesAStoreAnotherUserOwnsAndChangesNothing(command: [String]) async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.jsonStore(in: folder)
        try Self.giveToNobody(store)
        let before = try FolderSnapshot(URL(fileURLWithPath: store))

        let run = try await strata(arguments: [command[0], store] + command.dropFirst() + ["--json"])

        #expect(run.status == 1, "\(run.output) \(run.errors)")
        let error = try #require(try run.json()["error"] as? [String: Any])
        #expect(error["code"] as? String == "wrongUser")
        #expect(try FolderSnapshot(URL(fileURLWithPath: store)) == before)
        #expect(try await strata("inspect", store).status == 0)
    }

    /// Before, the owner was checked before the marker: `strata clear /etc --yes` as a user was told `wrongUser`
    /// (run it as root) instead of `notAStore`, and `prune` of another user's outbox `wrongUser` instead of
    /// `unsupportedStore`.
    @Test(.enabled(if: geteuid() == 0, "chown needs root"))
    func theMarkerIsJudgedBeforeTheOwner() async throws {
        // Given a folder without a marker and an outbox, both another user's
        let folder = try TemporaryFolder()
        let plain = folder.path("plain")
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        let outbox = try await OutboxToolTests.outbox(in: folder)
        for path in [plain, outbox] { try Self.giveToNobody(path) }
        let cases: [(arguments: [String], code: String)] = [
            (["clear", plain, "--yes"], "notAStore"),
            (["prune", plain, "--max-count", "1"], "notAStore"),
            (["prune", outbox, "--max-count", "1"], "unsupportedStore"),
            (["prune", outbox + "/records", "--max-count", "1"], "unsupportedStore"),
            (["clear", outbox, "--yes"], "wrongUser"),
        ]
        for (arguments, code) in cases {
            // When a writing command is given it
            let run = try await strata(arguments: arguments + ["--json"])

            // Then it says what the folder is before whose it is
            #expect(run.status == 1, "\(arguments): \(run.output)")
            let error = try #require(try run.json()["error"] as? [String: Any], "\(run.output)")
            #expect(error["code"] as? String == code, "\(arguments): \(error)")
        }
    }
}
