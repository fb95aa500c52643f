// The Oracle Content SDK's CacheProvider, on Strata: a download service that asks a file cache for ETags
// and lets the server answer 304 Not Modified. Starts its own loopback server and exits.
import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataFile
import StrataNetwork

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-cacheprovider-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: folder) }

// A server with one asset whose ETag changes when the asset does.
let asset = Locked((body: Data(repeating: 0x2A, count: 16_384), eTag: "\"v1\""))
let server = try await LoopbackServer.start([
    (
        "GET /content/assets/123/native",
        { request in
            let (body, eTag) = asset.withLock { ($0.body, $0.eTag) }
            if request.headers["if-none-match"] == eTag { return ServerReply(status: 304, headers: ["ETag": eTag]) }
            return ServerReply(status: 200, headers: ["ETag": eTag], body: body)
        }
    )
])
let url = server.baseURL.appendingPathComponent("content/assets/123/native")
let client = HTTPClient(configuration: .init(downloadDirectory: FileManager.default.temporaryDirectory))

// The ready provider: downloads in a FileDataSource, with their ETags.
let store = try FileDataSource(configuration: .init(location: .url(folder), identifier: "assets", maxSize: 10 << 20))
let provider = try FileCacheProvider(store: store)  // .alwaysFetchWithCustomHeader
let service = DownloadService(url: url, cacheProvider: provider, cacheKey: "123", client: client)

func step(_ title: String, _ body: () async throws -> DownloadResult<URL>) async {
    let before = server.requestCount()
    do {
        let result = try await body()
        let size = (try? Data(contentsOf: result.result).count) ?? -1
        let called = server.requestCount() > before ? "server called" : "server NOT called"
        print("\(title) -> \(result.origin), \(size) bytes, \(called)")
    } catch {
        print("\(title) -> ✗ \(error)")
    }
}

await step("1. downloadAsync (empty cache)") {
    try await service.downloadAsync { if $0 == 1 { print("   progress 1.0") } }
}
print("   stored ETag: \(provider.store.info(forKey: "123")?.eTag ?? "none")")
print("   headerValues: \(provider.headerValues(for: "123"))")
await step("2. download(progress:completion:) (same ETag)") {
    try await withCheckedThrowingContinuation { continuation in
        service.download(progress: nil) { continuation.resume(with: $0) }
    }
}
asset.withLock { $0 = (Data(repeating: 0x2B, count: 8_192), "\"v2\"") }
await step("3. download(progress:) future (asset changed)") {
    try await service.download(progress: nil).value
}

// A provider that bypasses the server when it finds the file.
let bypass = try FileCacheProvider(
    store: try FileDataSource(configuration: .init(location: .url(folder), identifier: "bypass")),
    cachePolicy: .bypassServerCallOnFoundItem
)
let bypassService = DownloadService(url: url, cacheProvider: bypass, cacheKey: "123", client: client)
await step("4. bypass policy, empty cache") { try await bypassService.downloadAsync() }
await step("5. bypass policy, found") { try await bypassService.downloadAsync() }

// A store too small for the asset: the provider's error fails the download.
let tiny = try FileCacheProvider(
    store: try FileDataSource(configuration: .init(location: .url(folder), identifier: "tiny", maxSize: 1_000))
)
await step("6. store over its size limit") {
    try await DownloadService(url: url, cacheProvider: tiny, cacheKey: "123", client: client).downloadAsync()
}
print("Requests the server received: \(server.requestCount())")
await server.stop()
