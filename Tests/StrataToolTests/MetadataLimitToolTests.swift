import Foundation
import Strata
import StrataFile
import StrataJSONFile
import StrataTesting
import Testing

/// The tool takes no more keys and metadata into memory than a store would (`STRATA_MAXIMUM_METADATA_SIZE`, by
/// default the stores' `maximumMetadataSize`): entries planted under long keys make it stop with `tooLarge`.
struct MetadataLimitToolTests {
    /// The limit the tests give the tool: the three entries below take more than it, two of them less.
    static let limit = ["STRATA_MAXIMUM_METADATA_SIZE": "5000"]

    /// A file store holding three entries under keys of 2,000 bytes.
    static func fileStore(in folder: TemporaryFolder) throws -> String {
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "long"))
        for letter in ["a", "b", "c"] {
            try store.setValue(Data(letter.utf8), forKey: String(repeating: letter, count: 2_000))
        }
        return folder.path("long")
    }

    /// A JSON-file store holding three entries under keys of 2,000 bytes; without its index when `withoutIndex`,
    /// so that a listing reads the keys from the entry files.
    static func jsonStore(in folder: TemporaryFolder, withoutIndex: Bool) throws -> String {
        let path = folder.path("json-long")
        do {
            let store = try JSONFileDataSource<String>(folder: URL(fileURLWithPath: path))
            for letter in ["a", "b", "c"] {
                try store.setValue(letter, forKey: String(repeating: letter, count: 2_000))
            }
        }
        if withoutIndex { try FileManager.default.removeItem(atPath: path + "/index.journal") }
        return path
    }

    @Test(arguments: [["inspect"], ["verify"], ["prune", "--max-count", "10", "--dry-run"]])
    func aFileStoreWhoseKeysPassTheLimitIsRefused(command: [String]) async throws {
        // Given a file store whose keys take more than the limit
        let folder = try TemporaryFolder()
        let store = try Self.fileStore(in: folder)

        // When the tool is run with that limit
        let run = try await strata(
            arguments: [command[0], store] + command.dropFirst() + ["--json"],
            environment: Self.limit
        )

        // Then it stops with tooLarge, naming the variable
        #expect(run.status == 1, "\(run.output) \(run.errors)")
        let error = try #require(try run.json()["error"] as? [String: Any], "\(run.output)")
        #expect(error["code"] as? String == "tooLarge")
        #expect((error["message"] as? String)?.contains("STRATA_MAXIMUM_METADATA_SIZE") == true, "\(error)")
        // And under the default limit the same store reads
        #expect(try await strata(arguments: [command[0], store] + command.dropFirst()).status == 0)
    }

    @Test(arguments: [false, true])
    func aJSONStoreWhoseKeysPassTheLimitIsRefused(withoutIndex: Bool) async throws {
        // Given a JSON-file store whose keys take more than the limit, with its index or without (a rebuild's reading)
        let folder = try TemporaryFolder()
        let store = try Self.jsonStore(in: folder, withoutIndex: withoutIndex)

        // When inspect and verify are run with that limit
        for command in ["inspect", "verify"] {
            let run = try await strata(arguments: [command, store, "--json"], environment: Self.limit)

            // Then each stops with tooLarge
            #expect(run.status == 1, "\(command): \(run.output) \(run.errors)")
            let error = try #require(try run.json()["error"] as? [String: Any], "\(run.output)")
            #expect(error["code"] as? String == "tooLarge", "\(command)")
        }
        #expect(try await strata("inspect", store).status == 0)
    }

    @Test(arguments: ["0", "lots", "-1"])
    func aLimitThatIsNoSizeIsAUsageError(value: String) async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFixtures.fileStore(in: folder)

        let run = try await strata("inspect", store, environment: ["STRATA_MAXIMUM_METADATA_SIZE": value])

        #expect(run.status == 2, "\(run.errors)")
        #expect(run.errors.contains("STRATA_MAXIMUM_METADATA_SIZE"))
    }
}
