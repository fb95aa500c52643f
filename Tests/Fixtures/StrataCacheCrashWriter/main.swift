// Fetches blobs through a BlobCache in a loop and prints each fetch before it starts and each acknowledged
// fetch after it returns, until killed.
//
// Usage: StrataCacheCrashWriter <parent folder> <identifier> <atomic|durable> <first version> <start time>
// The writer serves `CrashBlob` bodies from a loopback server of its own (`max-age=60`, an ETag per version,
// 304 for a matching `If-None-Match`). Step i picks a blob and maybe gives it version `first + i`, advances
// the clock past every freshness (so the next fetch revalidates), or purges the memory layer (so it reads
// the disk); then it prints `fetch <name> <version served>`, fetches, checks the body and prints
// `ack <name> <version fetched>`.
import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataFile
import StrataNetwork
import StrataTestSupport
import StrataTesting

/// One unbuffered write per line, so a kill never hides a line printed before it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func run(folder: URL, identifier: String, durability: StoreDurability, first: Int, start: Date) async throws {
    let versions = Locked<[String: Int]>([:])
    let server = try await LoopbackServer.start([
        (
            "GET /blob/*",
            { request in
                let name = String(request.path.split(separator: "/").last ?? "")
                let version = versions.withLock { $0[name] } ?? first
                let headers = ["ETag": "\"\(name)-\(version)\"", "Cache-Control": "max-age=60"]
                if request.headers["if-none-match"] == headers["ETag"] {
                    return ServerReply(status: 304, headers: headers)
                }
                return ServerReply(status: 200, headers: headers, body: CrashBlob.body(name: name, version: version))
            }
        )
    ])
    let clock = ManualClock(start: start)
    let cache = try BlobCache(
        using: HTTPClient(
            transport: TestTransport(.loopback(server.baseURL)),
            configuration: .init(timeout: .seconds(60))
        ),
        baseURL: CrashBlob.baseURL,
        configuration: .init(
            persistent: .init(
                location: .url(folder),
                identifier: identifier,
                maxSize: nil,
                durability: durability,
                // Hits rewrite freshness records too, so kills also land in those writes.
                lifetimeExtension: .onAccess(by: .seconds(30))
            ),
            clock: clock
        )
    )
    var generator = SeededRandomNumberGenerator(seed: UInt64(truncatingIfNeeded: first))
    var version = first
    while true {
        let name = "p\(Int.random(in: 0..<CrashBlob.count, using: &generator))"
        switch Int.random(in: 0..<10, using: &generator) {
        case 0...2:
            // A new version, fetched once everything is stale: a revalidation that gets a 200.
            versions.withLock { $0[name] = version }
            clock.advance(by: .seconds(61))
        case 3:
            // A new version the cache does not see while its copy is fresh.
            versions.withLock { $0[name] = version }
        case 4, 5: cache.purgeEphemeral()
        case 6: clock.advance(by: .seconds(61))
        default: break
        }
        say("fetch \(name) \(versions.withLock { $0[name] } ?? first)")
        let body = try await cache.fetch(from: CrashBlob.url(name))
        guard let fetched = CrashBlob.version(of: body, name: name) else {
            throw StrataError(.corrupt, "Fetched a damaged body for \(name): \(body.prefix(32))")
        }
        say("ack \(name) \(fetched)")
        version += 1
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 6, let first = Int(arguments[4]), let start = Double(arguments[5]) else {
    FileHandle.standardError.write(
        Data("usage: StrataCacheCrashWriter <folder> <identifier> <atomic|durable> <first> <start>\n".utf8)
    )
    exit(2)
}
do {
    try await run(
        folder: URL(fileURLWithPath: arguments[1]),
        identifier: arguments[2],
        durability: arguments[3] == "durable" ? .durable : .atomic,
        first: first,
        start: Date(timeIntervalSince1970: start)
    )
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
