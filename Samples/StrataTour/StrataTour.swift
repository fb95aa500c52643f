// The Strata tour: one run through every module — the operations of a CacheRepository, plugins, the file and
// JSON-file stores behind an HTTP API on a local server, streams, and the BlobCache.
// Run it with `swift run StrataTour`.

import Foundation

@main
struct StrataTour {
    static func main() async {
        print("Strata tour")
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-tour-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        await operations()
        await persistence(in: folder)
        await streams()
        await caches(in: folder)
        print("\nDone.")
    }
}
