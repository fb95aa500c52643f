import Foundation
import Strata
import StrataJSONFile
import StrataTestSupport
import Testing

/// A ``JSONFileStoreInspector`` takes no more keys and metadata into memory than the store's open would, whether it
/// reads the index or, without one, the entry files: the limit is the store's `maximumMetadataSize`, counted by the
/// store's own rule (each key's and tags' bytes and 64).
struct JSONFileStoreInspectorMetadataLimitTests {
    @Test(arguments: [false, true])
    func theInspectorStopsWhereTheStoresOpenStops(withoutIndex: Bool) throws {
        // Given a store of three entries under keys of 3,000 bytes, one tagged: 9,192 + 4 bytes as the store counts
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("json")
        do {
            let store = try JSONFileDataSource<String>(folder: url)
            for letter in ["a", "b"] { try store.setValue(letter, forKey: String(repeating: letter, count: 3_000)) }
            try store.setValue(
                "c",
                forKey: String(repeating: "c", count: 3_000),
                metadata: EntryMetadata(tags: ["tag1"])
            )
        }
        if withoutIndex { try FileManager.default.removeItem(at: url.appendingPathComponent("index.journal")) }
        let taken = 3 * (3_000 + 64) + 4

        // Then an inspector given that many bytes reports every entry
        let fits = try JSONFileStoreInspector(folder: url, access: .readOnly, maximumMetadataSize: taken)
        #expect(try fits.report(verifying: true).entries.count == 3)
        #expect(try fits.report(verifying: false).entries.count == 3)
        fits.close()
        // And one given a byte less stops with tooLarge, as the store's open does
        let short = try JSONFileStoreInspector(folder: url, access: .readOnly, maximumMetadataSize: taken - 1)
        for verifying in [false, true] {
            #expect { try short.report(verifying: verifying) } throws: { ($0 as? StrataError)?.code == .tooLarge }
        }
        short.close()
        var configuration = JSONFileDataSource<String>.Configuration(folder: url)
        configuration.maximumMetadataSize = taken - 1
        #expect {
            try JSONFileDataSource<String>(configuration: configuration)
        } throws: {
            ($0 as? StrataError)?.code == .tooLarge
        }
    }
}
