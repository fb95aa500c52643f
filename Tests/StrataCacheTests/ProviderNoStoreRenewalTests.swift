import Foundation
import Strata
import StrataCache
import StrataFile
import StrataNetwork
import Testing

/// A `304 Not Modified` whose `Cache-Control` says `no-store`, given to ``FileCacheProvider/renewItem(key:notModified:)``
/// directly: its fields replace the stored ones (RFC 9111, section 4.3.4), so the entry is dropped, not renewed.
struct ProviderNoStoreRenewalTests {
    /// The entry and its checkout are removed, and the key is a miss. (The entry was renewed, and served fresh for its
    /// lifetime.)
    @Test func aNoStoreNotModifiedDropsTheEntry() async throws {
        // Given version A stored, and handed out
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "assets"))
        let provider = try FileCacheProvider(store: store)
        let download = folder.url.appendingPathComponent("download")
        try Data("A".utf8).write(to: download)
        let checkout = try provider.store(objectAt: download, key: "k", headers: ["ETag": "\"A\""])

        // When a 304 about A that says `no-store` renews it
        try await provider.renewItem(
            key: "k",
            notModified: HTTPResponse(status: 304, headers: ["ETag": "\"A\"", "Cache-Control": "no-store"])
        )

        // Then nothing of A is kept: no entry, no checkout, and the next lookup misses
        #expect(store.info(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: checkout.path))
        #expect(provider.find(key: "k") == nil)
        #expect(provider.headerValues(for: "k").isEmpty)
    }
}
