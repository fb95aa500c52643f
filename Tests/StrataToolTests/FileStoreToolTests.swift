import Foundation
import Strata
import StrataFile
import StrataTestSupport
import Testing

/// The `strata` binary over a FileDataSource folder.
struct FileStoreToolTests {
    @Test func inspectListsEntriesMostRecentFirstWithASummary() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)

        let run = try await strata("inspect", store)

        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("(file store)"))
        #expect(run.output.contains("KEY"))
        #expect(run.output.contains("ETAG"))
        #expect(run.output.contains("\"v1\""))
        #expect(run.output.contains("expired"))
        #expect(run.output.contains("Entries: 4"))
        #expect(run.output.contains("Expired: 1"))
        let lines = run.output.split(separator: "\n")
        let c = try #require(lines.firstIndex { $0.hasPrefix("c ") })
        let a = try #require(lines.firstIndex { $0.hasPrefix("a ") })
        #expect(c < a, "most recently used first")
    }

    @Test func inspectJSONHasEveryFieldAndTotals() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)

        let run = try await strata("inspect", store, "--json", "--limit", "2")

        #expect(run.status == 0)
        let json = try run.json()
        #expect(json["command"] as? String == "inspect")
        let storeInfo = try #require(json["store"] as? [String: Any])
        #expect(storeInfo["kind"] as? String == "file")
        let entries = try #require(json["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        #expect(entries.first?["key"] as? String == "c")
        for field in ["key", "file", "size", "created", "expires", "lastAccess", "eTag", "expired", "problem"] {
            #expect(entries.first?[field] != nil, "missing \(field)")
        }
        let summary = try #require(json["summary"] as? [String: Any])
        #expect(summary["count"] as? Int == 4)
        #expect(summary["listed"] as? Int == 2)
        #expect(summary["totalSize"] as? Int == 607)
        #expect(summary["expired"] as? Int == 1)
        #expect(summary["damaged"] as? Int == 0)
    }

    @Test func verifyFindsAFlippedByteNamesTheKeyAndChangesNothing() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let damaged = try StoreFixtures.fileEntry(holding: 2, count: 200, in: store)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        bytes[10] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: damaged))

        let run = try await strata("verify", store)

        #expect(run.status == 1)
        #expect(run.output.contains("1 corrupt"))
        #expect(run.output.contains("checksum mismatch"))
        #expect(run.output.contains(" b "))
        #expect(FileManager.default.fileExists(atPath: damaged), "verify without --repair removes nothing")

        let json = try await strata("verify", store, "--json").json()
        let corrupt = try #require(json["corrupt"] as? [[String: Any]])
        #expect(corrupt.map { $0["key"] as? String } == ["b"])
        #expect(json["ok"] as? Bool == false)
    }

    /// A file cut short has lost its trailer: nothing proves the store wrote it, so `--repair` sets it aside
    /// (`<name>.damaged-<hex>`, byte for byte) rather than deleting it; a sealed damaged file is removed.
    @Test func verifyRepairRemovesOnlyTheDamagedEntry() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let damaged = try StoreFixtures.fileEntry(holding: 3, count: 300, in: store)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: damaged))
        try handle.truncate(atOffset: 150)
        try handle.close()
        let cut = try Data(contentsOf: URL(fileURLWithPath: damaged))
        let flipped = try StoreFixtures.fileEntry(holding: 2, count: 200, in: store)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: flipped))
        bytes[10] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: flipped))

        let run = try await strata("verify", store, "--repair")

        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("Repaired"))
        #expect(!FileManager.default.fileExists(atPath: damaged))
        #expect(!FileManager.default.fileExists(atPath: flipped))
        let cutName = URL(fileURLWithPath: damaged).lastPathComponent
        let aside = try folder.names(in: "store").filter { $0.hasPrefix(cutName) }
        try #require(aside.count == 1 && aside[0].contains(".damaged-"), "\(aside)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store + "/" + aside[0])) == cut)
        let flippedName = URL(fileURLWithPath: flipped).lastPathComponent
        #expect(!(try folder.names(in: "store").contains { $0.hasPrefix(flippedName) }), "a sealed file is removed")
        #expect(try folder.names(in: "store").filter { $0.hasSuffix(".strata") }.count == 2)
        #expect(try await strata("verify", store).status == 0)
    }

    /// A repair that cannot remove one damaged entry (an immutable file) still reports the entries it found, the
    /// ones it removed and what remains, then its error (exit code 1). Before, the error alone was printed.
    @Test(.enabled(if: immutableFilesWork, "needs chattr +i"))
    func aRepairThatCannotRemoveOneEntryReportsWhatItDid() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let stuck = try StoreFixtures.fileEntry(holding: 2, count: 200, in: store)
        let removable = try StoreFixtures.fileEntry(holding: 3, count: 300, in: store)
        for path in [stuck, removable] {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            bytes[10] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: path))
        }
        try #require(setImmutable(URL(fileURLWithPath: stuck), true))
        defer { setImmutable(URL(fileURLWithPath: stuck), false) }

        let run = try await strata("verify", store, "--repair", "--json")

        #expect(run.status == 1)
        let json = try run.json()
        #expect((json["corrupt"] as? [[String: Any]])?.count == 2, "\(json)")
        #expect(json["repaired"] as? Bool == true)
        #expect(json["remainingCorrupt"] as? Int == 1)
        #expect((json["error"] as? [String: Any])?["code"] != nil, "\(json)")
        #expect(!FileManager.default.fileExists(atPath: removable))
        #expect(FileManager.default.fileExists(atPath: stuck))
    }

    @Test func pruneDryRunListsButDeletesNothing() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let before = try folder.names(in: "store")

        let run = try await strata("prune", store, "--max-count", "1", "--dry-run", "--json")

        #expect(run.status == 0)
        let json = try run.json()
        #expect(json["dryRun"] as? Bool == true)
        let removed = try #require(json["removed"] as? [[String: Any]])
        #expect(removed.map { $0["key"] as? String } == ["old", "a", "b"])
        #expect(removed.map { $0["reason"] as? String } == ["expired", "over max-count", "over max-count"])
        #expect(try folder.names(in: "store") == before)
    }

    @Test func pruneRemovesExpiredThenLeastRecentlyUsed() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)

        let expiredOnly = try await strata("prune", store)
        #expect(expiredOnly.status == 0)
        #expect(expiredOnly.output.contains("Removed 1 entries"))

        let bySize = try await strata("prune", store, "--max-size", "400")
        #expect(bySize.status == 0)
        #expect(bySize.output.contains("over max-size"))

        let json = try await strata("inspect", store, "--json").json()
        let keys = try #require(json["entries"] as? [[String: Any]]).map { $0["key"] as? String }
        #expect(keys == ["c"])
    }

    /// Before, a file store took `--max-age` and ignored it: "Would remove 0 entries", exit code 0.
    @Test(arguments: [
        ["prune", "--max-age", "1"], ["prune", "--max-age", "1", "--dry-run"], ["inspect", "--max-age", "1"],
    ])
    func maxAgeOnAFileStoreIsAUsageErrorAndChangesNothing(arguments: [String]) async throws {
        // Given a file store, whose entries carry their own expiry
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let before = try FolderSnapshot(URL(fileURLWithPath: store))

        // When a command is given --max-age, which only a JSON-file store takes
        let run = try await strata(arguments: [arguments[0], store] + arguments.dropFirst())

        // Then it is a usage error naming the kind that takes it, and nothing changed
        #expect(run.status == 2, "\(run.output)\(run.errors)")
        #expect(run.errors.contains("--max-age") && run.errors.contains("JSON-file store"), "\(run.errors)")
        #expect(try FolderSnapshot(URL(fileURLWithPath: store)) == before)
    }

    @Test func clearNeedsYesAndLeavesForeignFiles() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: store + "/notes.txt"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: store + "/README.strata"))

        let refused = try await strata("clear", store)
        #expect(refused.status == 2)
        #expect(try folder.names(in: "store").filter { $0.hasSuffix(".strata") }.count == 5)

        let run = try await strata("clear", store, "--yes")

        #expect(run.status == 0)
        #expect(run.output.contains("Removed 4 entries"))
        let left = try folder.names(in: "store")
        #expect(left.contains("notes.txt"))
        #expect(left.contains("README.strata"))
        #expect(left.filter { $0.hasSuffix(".strata") } == ["README.strata"])
    }

    @Test func clearRemovesTheStoresOwnSideFilesAndKeepsItUsable() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let entry = try StoreFixtures.fileEntry(holding: 2, count: 200, in: store)
        let entryName = URL(fileURLWithPath: entry).lastPathComponent
        // What the store itself leaves: a write's temporary, and an entry set aside whose trailer proves it the store's.
        let own = [".strata-tmp-0123abcd", entryName + ".damaged-9f"]
        // What it never writes, though the names look close: set-aside names on files that prove nothing included.
        let foreign = [
            "notes.txt", "notes.txt.damaged-1", ".strata-tmpnote", "a.damaged-", "README.strata",
            entryName + ".damaged-9e", ".strata-index.damaged-1a",
        ]
        for name in own + foreign { try Data("x".utf8).write(to: URL(fileURLWithPath: store + "/" + name)) }
        try Data(contentsOf: URL(fileURLWithPath: entry)).write(to: URL(fileURLWithPath: store + "/" + own[1]))
        try FileManager.default.createDirectory(
            atPath: store + "/" + entryName.replacingOccurrences(of: "2", with: "3") + ".damaged-2f",
            withIntermediateDirectories: false
        )

        let run = try await strata("clear", store, "--yes")

        #expect(run.status == 0)
        let left = Set(try folder.names(in: "store"))
        #expect(left.isDisjoint(with: own), "\(left)")
        #expect(!left.contains(".strata-index"))
        #expect(left.isSuperset(of: foreign))
        #expect(left.contains(".strata-store") && left.contains(".strata-lock"), "the store stays usable")
        #expect(left.contains { $0.hasSuffix(".damaged-2f") }, "a folder set aside stays")
        let reopened = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "store"))
        #expect(reopened.count == 0)
    }

    @Test func aStoreOpenInAnotherProcessIsRefused() async throws {
        let folder = try TemporaryFolder()
        try StoreFixtures.fileStore(in: folder)
        let live = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "store"))

        let run = try await strata("clear", folder.path("store"), "--yes")

        #expect(run.status == 1)
        #expect(run.errors.contains("in use"))
        #expect(live.count == 4)
    }

    @Test func progressGoesToStandardErrorOnly() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder, extraCount: 6)

        let run = try await strata(
            "inspect",
            store,
            "--json",
            "--progress",
            environment: ["STRATA_PROGRESS_INTERVAL": "5"]
        )

        #expect(run.status == 0)
        #expect(run.errors.contains("strata: read 5 entries"))
        #expect(try run.json()["summary"] != nil)
    }
}
