import Foundation
import LoopbackServer
import Strata
import StrataCache
import StrataFile
import StrataNetwork
import StrataTestSupport

/// The shared temporary folder, removed when released (or by `remove()`).
typealias TemporaryFolder = StrataTestSupport.TemporaryFolder

extension TemporaryFolder {
    convenience init() throws {
        try self.init(prefix: "strata-cache-tests")
    }

    /// The names in a subfolder (or the folder), hidden files excluded.
    func contents(_ path: String = "") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent(path).path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }
}

/// A client writing downloads into `folder`, with a generous timeout for a busy machine.
func makeClient(_ folder: TemporaryFolder, transport: any HTTPTransport = URLSessionTransport()) throws -> HTTPClient {
    let downloads = folder.url.appendingPathComponent("downloads")
    try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
    return HTTPClient(
        transport: transport,
        configuration: .init(timeout: .seconds(60), downloadDirectory: downloads)
    )
}

/// A download of `/asset` (or `path`) from `server` through `provider` under `key`, with a client that downloads into
/// `folder`: how the provider tests start a download.
func assetDownload(
    from server: LoopbackServer,
    through provider: any CacheProvider,
    key: String = "k",
    folder: TemporaryFolder,
    transport: any HTTPTransport = URLSessionTransport(),
    path: String = "asset"
) throws -> DownloadService {
    DownloadService(
        url: server.baseURL.appendingPathComponent(path),
        cacheProvider: provider,
        cacheKey: key,
        client: try makeClient(folder, transport: transport)
    )
}

/// A versioned resource on a loopback server: 200 with its ETag, or 304 when `If-None-Match` (or another
/// header) carries the current ETag.
final class VersionedResource: Sendable {
    private let state: Locked<(body: Data, eTag: String, extra: [String: String])>
    let validatorHeader: String

    init(body: Data, eTag: String, extraHeaders: [String: String] = [:], validatorHeader: String = "if-none-match") {
        state = Locked((body, eTag, extraHeaders))
        self.validatorHeader = validatorHeader
    }

    func update(body: Data, eTag: String) {
        state.withLock {
            $0.body = body; $0.eTag = eTag
        }
    }

    func setExtraHeaders(_ headers: [String: String]) { state.withLock { $0.extra = headers } }

    func reply(_ request: ServerRequest) -> ServerReply {
        let (body, eTag, extra) = state.withLock { ($0.body, $0.eTag, $0.extra) }
        var headers = extra
        headers["ETag"] = eTag
        headers["Last-Modified"] = "Tue, 14 Nov 2023 22:13:20 GMT"
        if request.headers[validatorHeader] == eTag { return ServerReply(status: 304, headers: headers) }
        // A `Status` among the extra headers is the status of a full answer (and is sent as a header too).
        let status = headers["Status"].flatMap { Int($0) } ?? 200
        return ServerReply(status: status, headers: headers, body: body)
    }
}

/// Starts a server with one resource at `path`.
func startServer(_ resource: VersionedResource, path: String = "/asset") async throws -> LoopbackServer {
    try await LoopbackServer.start([("GET \(path)", { request in resource.reply(request) })])
}

/// An error a test provider throws.
struct ProviderFailure: Error, Equatable {
    let reason: String
}

/// A scripted provider that records what it is asked.
final class ScriptedProvider: CacheProvider {
    struct Calls {
        var find: [String] = []
        var cachedItem: [String] = []
        var store: [(key: String, headers: [String: String], fileExisted: Bool)] = []
    }

    let cachePolicy: CachePolicy
    let found: URL?
    let headers: [String: String]
    let storeError: ProviderFailure?
    let cachedItemError: ProviderFailure?
    let folder: URL
    private let calls = Locked(Calls())

    init(
        cachePolicy: CachePolicy,
        folder: URL,
        found: URL? = nil,
        headers: [String: String] = [:],
        storeError: ProviderFailure? = nil,
        cachedItemError: ProviderFailure? = nil
    ) {
        self.cachePolicy = cachePolicy
        self.folder = folder
        self.found = found
        self.headers = headers
        self.storeError = storeError
        self.cachedItemError = cachedItemError
    }

    var recorded: Calls { calls.withLock { $0 } }

    func find(key: String) -> URL? {
        calls.withLock { $0.find.append(key) }
        return found
    }

    func cachedItem(key: String) throws -> URL {
        calls.withLock { $0.cachedItem.append(key) }
        if let cachedItemError { throw cachedItemError }
        return folder.appendingPathComponent("cached-\(key)")
    }

    func store(objectAt file: URL, key: String, headers: [String: String]) throws -> URL {
        let existed = FileManager.default.fileExists(atPath: file.path)
        calls.withLock { $0.store.append((key, headers, existed)) }
        if let storeError { throw storeError }
        let destination = folder.appendingPathComponent("stored-\(key)")
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.moveItem(at: file, to: destination)
        return destination
    }

    func headerValues(for cacheKey: String) -> [String: String] { headers }
}

/// Collects progress values from any thread.
final class ProgressValues: Sendable {
    private let values = Locked<[Double]>([])

    func append(_ value: Double) { values.withLock { $0.append(value) } }

    var all: [Double] { values.withLock { $0 } }
}
