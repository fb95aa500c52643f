// Beagle's cache manager, on Strata: references with a hash and a maxAge in a count-capped JSON store with a
// memory layer, revalidated with the hash. Starts its own loopback server and exits.
import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataNetwork
import StrataTesting

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-cachemanager-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: folder) }

// A server with one screen; it answers 304 when the request carries the screen's current hash.
let screen = Locked((json: #"{"_beagleComponent_":"beagle:text","text":"Hello"}"#, eTag: "\"h1\""))
let server = try await LoopbackServer.start([
    (
        "GET /home",
        { request in
            let (json, eTag) = screen.withLock { ($0.json, $0.eTag) }
            if request.headers["beagle-hash"] == eTag { return ServerReply(status: 304, headers: ["ETag": eTag]) }
            return ServerReply(
                status: 200,
                headers: ["ETag": eTag, "Cache-Control": "max-age=60"],
                body: Data(json.utf8)
            )
        }
    )
])
let url = server.baseURL.appendingPathComponent("home")

// A manual clock so the sample can jump ahead in time.
let clock = ManualClock()
let cache = try CacheManager(configuration: .init(folder: folder, clock: clock))
let fetcher = cache.fetcher(hashHeader: "beagle-hash")

func step(_ title: String) async {
    let before = server.requestCount()
    do {
        let result = try await fetcher.fetch(url: url)
        let called = server.requestCount() > before ? "server called" : "server NOT called"
        let text = String(decoding: result.reference.data, as: UTF8.self)
        print(
            "\(title) -> \(result.origin), hash \(result.reference.hash), maxAge \(result.reference.maxAge ?? -1), \(called): \(text)"
        )
    } catch {
        print("\(title) -> ✗ \(error)")
    }
}

await step("1. first fetch")
await step("2. fetch again at once")
clock.advance(by: .seconds(61))
await step("3. after 61 s (stale: hash sent)")
screen.withLock { $0 = (#"{"_beagleComponent_":"beagle:text","text":"Hello again"}"#, "\"h2\"") }
clock.advance(by: .seconds(61))
await step("4. after the screen changed")

// The protocol itself, as Beagle calls it.
let reference = CacheReference(identifier: "manual", data: Data("{}".utf8), hash: "x", timeOfCreation: clock.now())
cache.addToCache(reference)
print("5. getReference(manual) -> \(cache.getReference(identifiedBy: "manual")?.identifier ?? "nil")")
clock.advance(by: .seconds(299))
print("6. isValid after 299 s -> \(cache.isValid(reference: reference))")
clock.advance(by: .seconds(1))
print("7. isValid after 300 s -> \(cache.isValid(reference: reference))")
print("Requests the server received: \(server.requestCount())")
await server.stop()
