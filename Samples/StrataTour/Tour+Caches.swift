import Foundation
import LoopbackServer
import SampleSupport
import Strata
import StrataCache

extension StrataTour {
    /// Part 5: the BlobCache, memory then disk then network, on a local server.
    static func caches(in folder: URL) async {
        print("\n━━ 5. BlobCache — memory, then disk, then the network; one request for concurrent fetches")
        do {
            let server = try await LoopbackServer.start([
                (
                    "GET /logo.png",
                    { _ in
                        ServerReply(status: 200, headers: ["Cache-Control": "max-age=600"], body: Data(count: 4_096))
                    }
                )
            ])
            let configuration = BlobCache.Configuration(
                persistent: .init(location: .url(folder), identifier: "blobs")
            )
            guard let logo = URL(string: "logo.png") else { return }
            let blobs = try BlobCache(baseURL: server.baseURL, configuration: configuration)
            await step("Ten concurrent fetches of a cold URL, then one more") {
                let bytes = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<10 { group.addTask { try await blobs.fetch(from: logo).count } }
                    return try await group.reduce(0, +)
                }
                print("    10 fetches returned \(bytes) bytes in all")
                print("    again: \(try await blobs.fetchWithLayer(from: logo).origin)")
                print("    The server saw \(server.requestCount(path: "/logo.png")) request.")
            }
            await step("After a memory warning (purgeEphemeral), the disk answers and refills memory") {
                blobs.purgeEphemeral()
                print("    = \(try await blobs.fetchWithLayer(from: logo).origin)")
                print("    then: \(try await blobs.fetchWithLayer(from: logo).origin)")
            }
            await server.stop()
        } catch {
            print("    ✗ \(error)")
        }
    }
}
