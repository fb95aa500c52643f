import Foundation
import Strata
import StrataCache
import StrataFile
import StrataJSONFile
import StrataMemory
import StrataNetwork
import StrataTestSupport
import Testing

/// Every module's errors print as one line; their causes are in the detailed description.
struct ErrorDescriptionTests {
    private struct Article: Decodable { let title: String }

    @Test func anErrorFromEveryModuleDescribesItselfInOneLine() async throws {
        let fixture = try await BlobCacheFixture([("GET /article", reply("not json"))])
        defer { Task { await fixture.tearDown() } }
        let folder = fixture.folder

        // Core and memory: a miss
        let memory = await strataError { _ = try await MemoryDataSource<Int>().get(KeyQuery("absent")) }
        // File: a store whose parent is a regular file
        let blocker = folder.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        let file = await strataError {
            _ = try FileDataSource(configuration: .init(location: .url(blocker), identifier: "s"))
        }
        // JSON file: a miss
        let json = await strataError {
            let store = try JSONFileDataSource<Int>(folder: folder.appendingPathComponent("json"))
            _ = try await store.get(KeyQuery("absent"))
        }
        // Network: a port nothing listens on
        let network = await strataError {
            let client = HTTPClient(transport: URLSessionTransport(), configuration: .init(timeout: .seconds(30)))
            _ = try await client.send(HTTPRequest(url: try #require(URL(string: "http://127.0.0.1:1/"))))
        }
        // Cache: a blob that does not decode (the DecodingError's own text spans lines)
        let cache = await strataError {
            _ = try await fixture.makeCache().fetch(from: fixture.url("article"), as: Article.self)
        }

        let errors = [("memory", memory), ("file", file), ("json", json), ("network", network), ("cache", cache)]
        for (module, error) in errors {
            let error = try #require(error, "\(module) threw no StrataError")
            #expect(!error.description.contains("\n"), "\(module): \(error.description)")
            #expect(error.description.hasPrefix("StrataError.\(error.code): "), "\(module)")
            #expect(error.detailedDescription().hasPrefix(error.description + "\n"), "\(module)")
            #expect(error.detailedDescription().contains("└─ Source location: "), "\(module)")
        }
        #expect(network?.code == .network)
        #expect(cache?.code == .dataSerialization)
        #expect(cache?.detailedDescription().contains("├─ Cause: ") == true)
    }
}
