import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataFile
import Testing

/// The files a ``DownloadService`` over a ``FileCacheProvider`` hands out are readable by their owner only, as a
/// download is: the checkout, and the copy of it a `304` that says `no-store` hands out in the download folder.
/// (Both were `0644`: the checkout was created so, and the copy made by `FileManager`, in `/tmp` by default on Linux.)
struct ProviderHandedOutFileModeTests {
    /// The permission bits of the file at `url`.
    private func mode(_ url: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
    }

    @Test func theCheckoutAndTheNoStoreCopyAreTheOwnersOnly() async throws {
        // Given a download stored and handed out, its checkout the owner's only
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let resource = VersionedResource(body: Data("v1".utf8), eTag: "\"v1\"")
        let server = try await startServer(resource)
        defer { Task { await server.stop() } }
        let store = try FileDataSource(configuration: .init(location: .url(folder.url), identifier: "assets"))
        let provider = try FileCacheProvider(store: store)
        let first = try await assetDownload(from: server, through: provider, folder: folder).downloadAsync()
        #expect(try mode(first.result) == 0o600)

        // When the server answers the next download with a 304 that says `no-store`
        resource.setExtraHeaders(["Cache-Control": "no-store"])
        let second = try await assetDownload(from: server, through: provider, folder: folder).downloadAsync()

        // Then the copy handed out is the owner's only too
        #expect(second.origin == .revalidated)
        #expect(second.result.deletingLastPathComponent().lastPathComponent == "downloads")
        #expect(try Data(contentsOf: second.result) == Data("v1".utf8))
        #expect(try mode(second.result) == 0o600)
    }
}
