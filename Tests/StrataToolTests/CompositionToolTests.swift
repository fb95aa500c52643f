import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataFile
import StrataNetwork
import StrataTesting
import Testing

/// The folders StrataCache's compositions write, as the tool names and reads them.
struct CompositionToolTests {
    @Test func aBlobCachesPersistentLayerShowsEachEntrysExpiry() async throws {
        let folder = try TemporaryFolder()
        let server = try await LoopbackServer.start([
            (
                "GET /a",
                { _ in ServerReply(status: 200, headers: ["Cache-Control": "max-age=3600"], body: Data("A".utf8)) }
            )
        ])
        // Now, to the second: the tool compares expiries with the real time.
        let clock = ManualClock(start: Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        do {
            let cache = try BlobCache(
                using: HTTPClient(transport: URLSessionTransport(), configuration: .init(timeout: .seconds(30))),
                baseURL: server.baseURL,
                configuration: .init(persistent: .init(location: .url(folder.url), identifier: "blobs"), clock: clock)
            )
            _ = try await cache.fetch(from: server.baseURL.appendingPathComponent("a"))
            await cache.flush()
        }
        await server.stop()

        let run = try await strata("inspect", folder.path("blobs"), "--json")
        #expect(run.status == 0, "\(run.errors)")
        let json = try run.json()
        let store = try #require(json["store"] as? [String: Any])
        #expect(store["role"] as? String == "blobCache")
        let entries = try #require(json["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        let expected = clock.now().addingTimeInterval(3_600).formatted(.iso8601)
        #expect(entries.first?["expires"] as? String == expected)

        let table = try await strata("inspect", folder.path("blobs"))
        #expect(table.output.contains("(file store: a BlobCache's persistent layer)"))
        #expect(table.output.contains(String(expected.replacingOccurrences(of: "T", with: " ").dropLast())))
        // One folder: the freshness renewed by a 304 or an extension is kept in each blob's entry.
        #expect(!FileManager.default.fileExists(atPath: folder.path("blobs.freshness")))
    }

    @Test func aFileCacheProvidersFoldersAreNamedForWhatTheyAre() async throws {
        let folder = try TemporaryFolder()
        do {
            let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "downloads"))
            let provider = try FileCacheProvider(store: store)
            let file = folder.url.appendingPathComponent("report.pdf")
            try Data("pdf".utf8).write(to: file)
            _ = try provider.store(objectAt: file, key: "report", headers: [:])
            _ = try provider.cachedItem(key: "report")
        }
        let before = try folder.names(in: "downloads.checkout")

        let storeRun = try await strata("inspect", folder.path("downloads"))
        #expect(storeRun.status == 0)
        #expect(storeRun.output.contains("(file store: a FileCacheProvider's store)"))
        let checkout = try await strata("clear", folder.path("downloads.checkout"), "--yes", "--json")
        #expect(checkout.status == 1)
        let error = try #require(try checkout.json()["error"] as? [String: Any])
        #expect(error["code"] as? String == "notAStore")
        #expect((error["message"] as? String)?.contains("FileCacheProvider's checkout folder") == true)
        #expect(try folder.names(in: "downloads.checkout") == before, "nothing changed in the checkout folder")
    }
}
