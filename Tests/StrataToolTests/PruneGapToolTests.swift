import Foundation
import Strata
import StrataJSONFile
import Testing

@testable import strata

/// `prune` of a JSON-file store run in this process, so that an app's use of the store can be planted where the
/// tool holds it not: after the inspector's plan gave the folder up, before the data source that removes opens it.
struct PruneGapToolTests {
    /// What the app does to the planned key `ada` in the gap.
    enum AppUse: String, CaseIterable {
        case write, read, renew
    }

    @Test(arguments: AppUse.allCases)
    func aPlannedEntryTheAppUsedInTheGapIsKept(use: AppUse) throws {
        // Given old (expired), ada and grace, and a prune that keeps one entry: it plans to remove old and ada
        let folder = try TemporaryFolder()
        let path = try StoreFixtures.jsonStore(in: folder)
        let options = try Options(["prune", path, "--max-count", "1", "--json"])

        // When an app opens the store between the plan and the removal, and writes, reads or renews ada
        let outcome = try Prune.prune(options) {
            let app = try JSONFileDataSource<[String: String]>(folder: URL(fileURLWithPath: path))
            switch use {
            case .write: try app.setValue(["name": "Ada Lovelace"], forKey: "ada")
            case .read: _ = try app.value(forKey: "ada")
            case .renew: try app.renewMetadata(EntryMetadata(storedAt: Date()), forKey: "ada")
            }
        }

        // Then only old is removed, ada stays as the app left it, and the report lists old alone and one skipped
        let store = try JSONFileDataSource<[String: String]>(folder: URL(fileURLWithPath: path))
        #expect(store.sortedKeys() == ["ada", "grace"])
        #expect(try store.value(forKey: "ada") == ["name": use == .write ? "Ada Lovelace" : "Ada"])
        let report = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(Prune.json(outcome, dryRun: false)))
                as? [String: Any]
        )
        let removed = try #require(report["removed"] as? [[String: Any]])
        #expect(removed.compactMap { $0["key"] as? String } == ["old"])
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["removedCount"] as? Int == 1)
        #expect(summary["skippedCount"] as? Int == 1)
        #expect(summary["remainingCount"] as? Int == 2)
    }

    @Test func aPruneNobodyInterruptsRemovesEveryPlannedEntry() throws {
        let folder = try TemporaryFolder()
        let path = try StoreFixtures.jsonStore(in: folder)

        let outcome = try Prune.prune(try Options(["prune", path, "--max-count", "1"]))

        #expect(outcome.removed.compactMap(\.row.key).sorted() == ["ada", "old"])
        #expect(outcome.skippedCount == 0)
        #expect(try JSONFileDataSource<[String: String]>(folder: URL(fileURLWithPath: path)).sortedKeys() == ["grace"])
    }
}
