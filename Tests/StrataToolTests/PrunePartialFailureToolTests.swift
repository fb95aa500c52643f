import Foundation
import StrataTestSupport
import Testing

/// `prune` when the system refuses to remove one planned entry (an immutable file: not even root may unlink it): the
/// others still go, and the report says what went and what stayed, with exit code 1.
struct PrunePartialFailureToolTests {
    @Test(.enabled(if: immutableFilesWork))
    func aFileStoreEntryThatCannotBeRemovedIsReportedAndTheOthersGo() async throws {
        // Given a file store whose expired `old` and least recently used `a` are planned, `a`'s file immutable
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)
        let stuck = URL(fileURLWithPath: try StoreFixtures.fileEntry(holding: 1, count: 100, in: store))
        try #require(setImmutable(stuck, true))
        defer { setImmutable(stuck, false) }

        // When a prune keeps two entries
        let run = try await strata("prune", store, "--max-count", "2", "--json")

        // Then `old` is removed and reported, `a` stays and is reported as failed, with the error and exit code 1
        #expect(run.status == 1, "\(run.errors)")
        let json = try run.json()
        let removed = try #require(json["removed"] as? [[String: Any]])
        #expect(removed.map { $0["key"] as? String } == ["old"])
        let failed = try #require(json["failed"] as? [[String: Any]])
        #expect(failed.map { $0["key"] as? String } == ["a"])
        #expect(failed.first?["code"] as? String == "io")
        let summary = try #require(json["summary"] as? [String: Any])
        #expect(summary["removedCount"] as? Int == 1)
        #expect(summary["failedCount"] as? Int == 1)
        #expect(summary["skippedCount"] as? Int == 0)
        #expect(summary["remainingCount"] as? Int == 3)
        let error = try #require(json["error"] as? [String: Any])
        #expect(error["code"] as? String == "io")
        #expect((error["message"] as? String)?.contains("could not remove a") == true, "\(error)")
        #expect(FileManager.default.fileExists(atPath: stuck.path))
        let keys = try #require(try await strata("inspect", store, "--json").json()["entries"] as? [[String: Any]])
        #expect(keys.compactMap { $0["key"] as? String }.sorted() == ["a", "b", "c"])
    }

    @Test(.enabled(if: immutableFilesWork))
    func aJSONStoreEntryThatCannotBeRemovedIsReportedAndTheOthersGo() async throws {
        // Given a JSON-file store whose expired `old` and least recently used `ada` are planned, `old`'s file
        // immutable (it is planned first: the removals after it must still run)
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.jsonStore(in: folder)
        let stuck = try #require(try entryFile(holding: "Old", in: store))
        try #require(setImmutable(stuck, true))
        defer { setImmutable(stuck, false) }

        // When a prune keeps one entry, in text
        let run = try await strata("prune", store, "--max-count", "1")

        // Then `ada` goes, `old` stays, and the error says so after the table, with exit code 1
        #expect(run.status == 1)
        #expect(run.output.contains("Removed 1 entries"), "\(run.output)")
        #expect(run.errors.contains("strata: error: could not remove old"), "\(run.errors)")
        setImmutable(stuck, false)
        let json = try await strata("inspect", store, "--json").json()
        let keys = try #require(json["entries"] as? [[String: Any]]).compactMap { $0["key"] as? String }
        #expect(keys.sorted() == ["grace", "old"])
    }

    /// The entry file of a JSON-file store whose value's `name` is `name`.
    private func entryFile(holding name: String, in store: String) throws -> URL? {
        let entries = URL(fileURLWithPath: store).appendingPathComponent("entries")
        let enumerator = FileManager.default.enumerator(at: entries, includingPropertiesForKeys: nil)
        while let file = enumerator?.nextObject() as? URL {
            guard let data = try? Data(contentsOf: file) else { continue }
            if String(decoding: data, as: UTF8.self).contains("\"\(name)\"") { return file }
        }
        return nil
    }
}
