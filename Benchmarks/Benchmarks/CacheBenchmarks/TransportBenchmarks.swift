import Benchmark
import BenchmarkSupport
import Foundation
import StrataAsyncHTTPClient
import StrataNetwork

// The transport rows: the same `HTTPClient` calls through `URLSessionTransport` and `AsyncHTTPClientTransport`,
// against the BlobCache rows' loopback server. Names are "Transport <row>: <transport>"; `scripts/benchmarks`
// takes the ratio of the two, both ways.

/// The contenders: each benchmark makes its transport in its setup and drops it (shutting its client down) in
/// its teardown.
enum TransportFixture {
    static let contenders: [(name: String, make: @Sendable () -> any HTTPTransport)] = [
        ("URLSessionTransport", { URLSessionTransport() }),
        ("AsyncHTTPClientTransport", { AsyncHTTPClientTransport() }),
    ]

    /// The download row's body: 1 MiB.
    static let downloadSize = 1 << 20

    /// The download row's server, which answers every path with 1 MiB; started on first use.
    static let downloadServer = Task {
        try await BlobServer.start(body: Fixture.values(1, size: downloadSize)[0])
    }

    /// Requests that run at once in the concurrent row.
    static let concurrentFetches = 64

    /// Shuts down a transport's client, if it owns one.
    static func shutDown(_ transport: (any HTTPTransport)?) async throws {
        try await (transport as? AsyncHTTPClientTransport)?.shutdown()
    }
}

func registerTransportRows() {
    for (name, make) in TransportFixture.contenders {
        registerTransportColdFetch(name, make)
        registerTransportDownload(name, make)
        registerTransportConcurrentFetches(name, make)
    }
}

/// `HTTPClient.send` of a new 64 KiB URL, ten per iteration.
func registerTransportColdFetch(_ name: String, _ make: @escaping @Sendable () -> any HTTPTransport) {
    var transport: (any HTTPTransport)?
    var server: BlobServer?
    var next = 0
    Benchmark("Transport cold fetch: \(name)") { benchmark in
        guard let transport, let server else { return }
        let client = HTTPClient(transport: transport)
        for _ in 0..<CacheBatch.coldFetches {
            let response = try await client.send(HTTPRequest(url: server.url("blob/\(name)-\(next)")))
            next += 1
            if response.body.count != BlobFixture.size { benchmark.error("short body") }
        }
    } setup: {
        server = try await BlobFixture.server.value
        transport = make()
    } teardown: {
        try await TransportFixture.shutDown(transport)
        transport = nil
    }
}

/// `HTTPClient.download` of 1 MiB to a file (deleted after each iteration).
func registerTransportDownload(_ name: String, _ make: @escaping @Sendable () -> any HTTPTransport) {
    var transport: (any HTTPTransport)?
    var server: BlobServer?
    var folder: TemporaryFolder?
    var next = 0
    Benchmark("Transport 1 MiB download: \(name)") { benchmark in
        guard let transport, let server, let folder else { return }
        let client = HTTPClient(transport: transport, configuration: .init(downloadDirectory: folder.url))
        let file = try await client.download(HTTPRequest(url: server.url("blob/\(name)-\(next)")))
        next += 1
        if file.byteCount != TransportFixture.downloadSize { benchmark.error("short download") }
        try FileManager.default.removeItem(at: file.fileURL)
    } setup: {
        server = try await TransportFixture.downloadServer.value
        folder = try TemporaryFolder("transport-downloads-\(name)")
        transport = make()
    } teardown: {
        try await TransportFixture.shutDown(transport)
        transport = nil
        folder?.remove()
    }
}

/// 64 tasks each `HTTPClient.send` a new 64 KiB URL at once; one iteration is all 64.
func registerTransportConcurrentFetches(_ name: String, _ make: @escaping @Sendable () -> any HTTPTransport) {
    var transport: (any HTTPTransport)?
    var server: BlobServer?
    var next = 0
    Benchmark("Transport 64 concurrent fetches: \(name)") { benchmark in
        guard let transport, let server else { return }
        let client = HTTPClient(transport: transport)
        let urls = (next..<(next + TransportFixture.concurrentFetches)).map { server.url("blob/\(name)-many-\($0)") }
        next += TransportFixture.concurrentFetches
        let received = try await withThrowingTaskGroup(of: Int.self) { group in
            for url in urls { group.addTask { try await client.send(HTTPRequest(url: url)).body.count } }
            return try await group.reduce(0, +)
        }
        if received != TransportFixture.concurrentFetches * BlobFixture.size { benchmark.error("short bodies") }
    } setup: {
        server = try await BlobFixture.server.value
        transport = make()
    } teardown: {
        try await TransportFixture.shutDown(transport)
        transport = nil
    }
}
