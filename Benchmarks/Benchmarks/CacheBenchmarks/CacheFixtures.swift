import BenchmarkSupport
import Foundation
import StrataCache
import StrataFile
import StrataNetwork
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The data of the BlobCache rows: 512 blobs of 64 KiB (an image), the same bytes on every path.
enum BlobFixture {
    static let count = 512
    static let size = 64 << 10
    static let body = Fixture.values(1, size: size)[0]
    static let order = Fixture.accessOrder(count)

    /// A copy of ``body`` in a buffer of its own (a `Data` copied by value shares its buffer).
    static func ownCopy() -> Data { body.withUnsafeBytes { Data($0) } }

    /// One server per process, started on first use.
    static let server = Task { try await BlobServer.start(body: body) }

    /// The URLs of the warm rows: `/blob/warm-0` …
    static func urls(_ server: BlobServer) -> [URL] { (0..<count).map { server.url("blob/warm-\($0)") } }

    /// A BlobCache in a folder of its own, default layers (64 MiB of memory, `.atomic` disk writes written before
    /// the fetch returns, unless `writes` says otherwise), on `client` (URLSession's transport by default).
    static func cache(
        in folder: TemporaryFolder,
        writes: BlobCache.PersistentWrites = .beforeReturning,
        client: HTTPClient = HTTPClient()
    ) throws -> BlobCache {
        try BlobCache(
            using: client,
            configuration: .init(persistent: .init(location: .url(folder.url), identifier: "blobs", writes: writes))
        )
    }

    /// A cache that has fetched every one of `urls` once, so both of its layers hold them.
    static func warmCache(in folder: TemporaryFolder, urls: [URL]) async throws -> BlobCache {
        let cache = try cache(in: folder)
        for url in urls {
            let data = try await cache.fetch(from: url)
            guard data.count == size else { throw CocoaError(.fileReadCorruptFile) }
        }
        return cache
    }
}

/// The baseline of the memory row: what a user writes by hand, a dictionary from URL to bytes behind a lock.
final class BlobDictionary: Sendable {
    let blobs: Mutex<[URL: Data]>

    init(_ blobs: [URL: Data]) { self.blobs = Mutex(blobs) }

    func data(for url: URL) -> Data? { blobs.withLock { $0[url] } }

    /// ``data(for:)`` as an async cache offers it, run where its caller runs, as `BlobCache.fetch(from:)` is.
    /// The row calls this one: package-benchmark runs a row whose body awaits in a new task on the cooperative
    /// pool at every iteration (whose thread, and core, may change from one iteration to the next), and a body
    /// that does not on the runner's own thread; both rows must run the same way for their ratio to be the
    /// lookups' alone.
    nonisolated(nonsending) func fetch(from url: URL) async -> Data? { data(for: url) }
}

/// The baseline of the cold row: a session as Strata's transport configures its own (ephemeral, no
/// `URLCache`), so neither side pays for FoundationNetworking's disk cache.
enum PlainSession {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()
}
