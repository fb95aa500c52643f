import Foundation
import Strata
import StrataCache
import StrataFile
import StrataNetwork
import StrataTestSupport
import StrataTesting
import Testing

/// The caches hold no descriptor once they are gone: a BlobCache's persistent layer, and a `FileCacheProvider` with
/// the downloads that `DownloadService` made into its folder, after twenty of each were made, used over a loopback
/// server and dropped. Each one that left a descriptor open would cost a long-running process one for good.
struct CacheDescriptorTests {
    @Test(.timeLimit(.minutes(1)))
    func blobCachesThatAreGoneHoldNothingOpen() async throws {
        try await withFixture([("GET /a", reply("alpha")), ("GET /b", reply("beta"))]) { fixture in
            for round in 0..<20 {
                let cache = try fixture.makeCache()
                #expect(try await cache.fetch(from: fixture.url("a")) == Data("alpha".utf8))
                #expect(try await cache.fetch(from: fixture.url("b")) == Data("beta".utf8))
                cache.purgeEphemeral()
                #expect(try await cache.fetchWithLayer(from: fixture.url("a")).origin == .file)
                // (While a cache is open, its persistent layer holds its folder: what is counted below is what it
                // held.) A program started meanwhile inherits none of it.
                if round == 0 {
                    #expect(!openDescriptors(under: fixture.folder).isEmpty)
                    #expect(try descriptorsAChildInherits(under: fixture.folder) == [])
                }
                if round % 5 == 4 { try cache.removeAll() }
            }
            #expect(openDescriptors(under: fixture.folder) == [])
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func providersAndTheirDownloadsThatAreGoneHoldNothingOpen() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let resource = VersionedResource(body: pattern(count: 10_000), eTag: "\"v1\"")
        let server = try await startServer(resource)
        for round in 0..<20 {
            let store = try FileDataSource(
                configuration: .init(location: .url(folder.url), identifier: "assets", clock: ManualClock())
            )
            let provider = try FileCacheProvider(store: store)
            // A download, then a revalidation answered 304, then one of a new version
            if round % 3 == 2 { resource.update(body: pattern(count: 10_000 + round), eTag: "\"v\(round)\"") }
            let result = try await assetDownload(from: server, through: provider, folder: folder).downloadAsync()
            #expect(try Data(contentsOf: result.result).count >= 10_000)
            _ = try provider.cachedItem(key: "k")
            if round == 0 {
                #expect(!openDescriptors(under: folder.url).isEmpty)
                #expect(try descriptorsAChildInherits(under: folder.url) == [])
            }
        }
        await server.stop()
        #expect(openDescriptors(under: folder.url) == [])
    }
}
