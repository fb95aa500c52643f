import Foundation
import Strata
import StrataFile
import StrataTestSupport
import Testing

/// A ``FileStoreInspector`` takes no more keys and metadata into memory than the store's open would: the limit is
/// the store's `maximumMetadataSize`, counted by the store's own rule.
struct FileStoreInspectorMetadataLimitTests {
    @Test func theInspectorStopsWhereTheStoresOpenStops() throws {
        // Given a store of three entries under long keys, and the bytes of keys and metadata the store counts
        let folder = try TemporaryFolder()
        let configuration = FileDataSource.Configuration(location: .url(folder.url), identifier: "store")
        let taken: Int
        do {
            let store = try FileDataSource(configuration: configuration)
            for letter in ["a", "b", "c"] {
                try store.setValue(Data(letter.utf8), forKey: String(repeating: letter, count: 3_000))
            }
            taken = store.metadataSize
        }
        let url = folder.url.appendingPathComponent("store")

        // Then an inspector given that many bytes lists and verifies every entry
        do {
            let fits = try FileStoreInspector(folder: url, access: .readOnly, maximumMetadataSize: taken)
            #expect(try fits.listEntries().count == 3)
            #expect(try fits.verifyEntries().allSatisfy { $0.problem == nil })
        }
        // And one given a byte less stops with tooLarge, as the store's open does
        do {
            let short = try FileStoreInspector(folder: url, access: .readOnly, maximumMetadataSize: taken - 1)
            #expect { try short.listEntries() } throws: { ($0 as? StrataError)?.code == .tooLarge }
            #expect { try short.verifyEntries() } throws: { ($0 as? StrataError)?.code == .tooLarge }
        }
        var smaller = configuration
        smaller.maximumMetadataSize = taken - 1
        #expect { try FileDataSource(configuration: smaller) } throws: { ($0 as? StrataError)?.code == .tooLarge }
    }
}
