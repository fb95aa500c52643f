import Foundation
import Strata
import StrataJSONFile
import StrataTestSupport
import Testing

/// An item the store cannot remove (immutable, or another user's in a shared folder) where it would remove a leftover
/// temporary file: reported, left where it is, and the walk goes on.
struct JSONFileDataSourceStuckItemTests {
    /// Before, the first such item ended every walk of the folder: a store whose index had to be rebuilt did not
    /// open, and `removeAll()` removed nothing (the values of a sign-out stayed).
    @Test(.enabled(if: immutableFilesWork), arguments: [false, true])
    func aLeftoverTheStoreCannotRemoveStopsNoWalk(rebuilds: Bool) async throws {
        try await withTemporaryFolder { folder in
            let reports = ReportCollector()
            let configuration = JSONFileDataSource<Item>.Configuration(folder: folder, diagnostics: reports.diagnostics)
            // Given a store of five entries, and a leftover temporary file in its folder that cannot be removed
            do {
                let store = try JSONFileDataSource<Item>(configuration: configuration)
                for number in 1...5 { try store.setValue(Item(name: "n", number: number), forKey: "k\(number)") }
            }
            let stuck = folder.appendingPathComponent(".strata-tmp-0123abcd")
            try Data("partial".utf8).write(to: stuck)
            #expect(setImmutable(stuck, true))
            defer { setImmutable(stuck, false) }
            if rebuilds { try FileManager.default.removeItem(at: folder.appendingPathComponent("index.journal")) }

            // When the store opens (rebuilding its index or not), and every value is removed
            do {
                let store = try JSONFileDataSource<Item>(configuration: configuration)
                #expect(store.count == 5)
                try store.removeAll()
                #expect(store.count == 0)
            }

            // Then no value is left, the stuck file was reported and left where it is
            #expect(FileManager.default.fileExists(atPath: stuck.path))
            #expect(reports.all.contains { $0.message.contains(".strata-tmp-0123abcd") })
            setImmutable(stuck, false)
            #expect(try JSONFileDataSource<Item>(configuration: configuration).count == 0)
        }
    }
}
