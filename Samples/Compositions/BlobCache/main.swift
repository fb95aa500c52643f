// A BlobCache in front of a loopback server: each of Kumo's three scenarios, a 304 revalidation, and which layer
// answered each fetch. Time is a manual clock, so the sample exits at once.
import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataNetwork
import StrataTesting

let server = try await LoopbackServer.start([
    (
        "GET /logo.png",
        { request in
            if request.headers["if-none-match"] == "\"v1\"" {
                return ServerReply(status: 304, headers: ["ETag": "\"v1\""])
            }
            return ServerReply(
                status: 200,
                headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=3600"],
                body: Data("PNG bytes".utf8)
            )
        }
    )
])
func require<T>(_ value: T?) throws -> T {
    guard let value else { throw StrataError(.invalidArgument, "The sample's URL is invalid") }
    return value
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blobcache-sample-\(UUID().uuidString)")
let clock = ManualClock()
let configuration = BlobCache.Configuration(
    ephemeral: .init(initialLifetime: .seconds(60)),
    persistent: .init(location: .url(folder), identifier: "images"),
    clock: clock
)
let logo = try require(URL(string: "logo.png"))

func show(_ label: String, _ cache: BlobCache) async throws {
    let fetched = try await cache.fetchWithLayer(from: logo)
    let text = String(decoding: fetched.data, as: UTF8.self)
    print("\(label): \(text) <- \(fetched.origin) (requests so far: \(server.requestCount()))")
}

do {
    let cache = try BlobCache(baseURL: server.baseURL, configuration: configuration)
    print("Scenario 1: neither layer has the blob, so the cache downloads it and stores it in both.")
    try await show("  fetch", cache)
    try await show("  fetch again", cache)
}
do {
    print("Scenario 2: a new process starts with empty memory; the disk answers and the blob is copied up.")
    let cache = try BlobCache(baseURL: server.baseURL, configuration: configuration)
    try await show("  fetch", cache)
    try await show("  fetch again", cache)

    print("Scenario 3: 61 s later the memory copy has expired (no extension), the disk copy has not.")
    clock.advance(by: .seconds(61))
    try await show("  fetch", cache)

    print("Two hours later both copies are stale: the ETag is sent and a 304 renews the blob, no body.")
    clock.advance(by: .seconds(7_200))
    try await show("  fetch", cache)

    cache.purgeEphemeral()
    try cache.cleanPersistent()
    print(
        "After purgeEphemeral() and cleanPersistent(): \(cache.ephemeralCount) in memory, \(cache.persistentCount) on disk."
    )
}
await server.stop()
try? FileManager.default.removeItem(at: folder)
