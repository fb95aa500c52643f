import Benchmark
import BenchmarkSupport
import Foundation
import StrataCache
import StrataNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The BlobCache rows: a fetch answered by memory, by disk and by the network, each beside the raw way to get
// the same bytes from the same place; and 100 concurrent fetches of one URL, which must make one request.
// Names are "<row>: <contender>"; `scripts/benchmarks` matches on them.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Settings.configuration()
    registerMemoryHits()
    registerDiskHits()
    registerColdFetches()
    registerColdFetchesWrittenByHand()
    registerColdFetchesOnAsyncHTTPClient()
    registerCoalescedFetches()
    registerTransportRows()
}

/// Operations per iteration of each row.
enum CacheBatch {
    static let memoryHits = BlobFixture.count
    static let diskHits = 64
    static let coldFetches = 10
    static let concurrentFetches = 100
}

/// Warm memory: every blob is in the ephemeral layer; the baseline is a dictionary behind a `Mutex`. Each contender is
/// looked up by the very `URL` values it stored under; as context, both are looked up by equal URLs made again (as an
/// app makes them from each response it decodes), so that no key comparison ends at the shared storage of one string.
func registerMemoryHits() {
    registerMemoryHits("BlobCache memory hit", lookingUpOtherURLs: false)
    registerMemoryHits("BlobCache memory hit by other URLs", lookingUpOtherURLs: true)
}

/// Registers the two contenders of a warm-memory row named `row`.
///
/// - Parameters:
///   - row: The row's name.
///   - lookingUpOtherURLs: Whether the fetches use URLs made again, equal to the ones stored under.
func registerMemoryHits(_ row: String, lookingUpOtherURLs: Bool) {
    var folder: TemporaryFolder?
    var cache: BlobCache?
    var urls: [URL] = []
    Benchmark("\(row): Strata fetch") { benchmark in
        guard let cache else { return }
        for index in BlobFixture.order {
            let data = try await cache.fetch(from: urls[index])
            if data.count != BlobFixture.size { benchmark.error("short blob from memory") }
        }
    } setup: {
        // A server of the row's own, stopped once the cache is warm: no server work (the warm-up's kept-alive
        // connections) runs beside the measured fetches, as none runs beside the dictionary's lookups.
        let server = try await BlobServer.start(body: BlobFixture.body)
        let created = try TemporaryFolder("blob-memory")
        folder = created
        urls = BlobFixture.urls(server)
        cache = try await BlobFixture.warmCache(in: created, urls: urls)
        if lookingUpOtherURLs { urls = BlobFixture.urls(server) }
        await server.stop()
        if cache?.ephemeralCount != BlobFixture.count { throw CocoaError(.featureUnsupported) }
    } teardown: {
        cache = nil
        folder?.remove()
    }

    var dictionary: BlobDictionary?
    Benchmark("\(row): Mutex dictionary") { benchmark in
        guard let dictionary else { return }
        for index in BlobFixture.order {
            let data = await dictionary.fetch(from: urls[index])
            if data?.count != BlobFixture.size { benchmark.error("miss in the dictionary") }
            blackHole(data)
        }
    } setup: {
        let server = try await BlobFixture.server.value
        urls = BlobFixture.urls(server)
        // A buffer of its own per URL, as a dictionary filled by downloads holds, and as the cache's memory layer
        // holds: one buffer shared by every URL would keep its header in the processor's cache for every lookup.
        dictionary = BlobDictionary(Dictionary(uniqueKeysWithValues: urls.map { ($0, BlobFixture.ownCopy()) }))
        if lookingUpOtherURLs { urls = BlobFixture.urls(server) }
    }
}

/// Warm disk: the ephemeral layer is purged before each iteration (not measured), so every fetch reads the
/// blob and its freshness record from disk and copies the blob up into memory; the baseline reads the same
/// bytes from one file each with `Data(contentsOf:)`.
func registerDiskHits() {
    var folder: TemporaryFolder?
    var cache: BlobCache?
    var urls: [URL] = []
    var cursor = Cursor(order: BlobFixture.order)
    Benchmark("BlobCache disk hit: Strata fetch") { benchmark in
        guard let cache else { return }
        cache.purgeEphemeral()
        let positions = cursor.next(CacheBatch.diskHits)
        benchmark.startMeasurement()
        for position in positions {
            let fetched = try await cache.fetchWithLayer(from: urls[cursor.order[position]])
            if fetched.origin != .file { benchmark.error("a disk-row fetch was answered by \(fetched.origin)") }
        }
        benchmark.stopMeasurement()
    } setup: {
        let server = try await BlobFixture.server.value
        let created = try TemporaryFolder("blob-disk")
        folder = created
        urls = BlobFixture.urls(server)
        cache = try await BlobFixture.warmCache(in: created, urls: urls)
    } teardown: {
        cache = nil
        folder?.remove()
    }

    var files: TemporaryFolder?
    var fileCursor = Cursor(order: BlobFixture.order)
    Benchmark("BlobCache disk hit: Data(contentsOf:)") { benchmark in
        guard let files else { return }
        for position in fileCursor.next(CacheBatch.diskHits) {
            let data = try Data(contentsOf: files.file("blob-\(fileCursor.order[position])"))
            if data.count != BlobFixture.size { benchmark.error("short file") }
        }
    } setup: {
        let created = try TemporaryFolder("blob-files")
        for index in 0..<BlobFixture.count { try created.writeQuickly(BlobFixture.body, to: "blob-\(index)") }
        files = created
    } teardown: {
        files?.remove()
    }

    // Context: the same reads, each buffer kept until the next iteration, as a cache's memory layer keeps
    // what it copies up (fresh pages are faulted in for every kept buffer; a buffer freed at once is reused).
    var keptFiles: TemporaryFolder?
    var keptCursor = Cursor(order: BlobFixture.order)
    var kept: [Data] = []
    Benchmark("BlobCache disk hit: Data(contentsOf:) kept") { benchmark in
        guard let keptFiles else { return }
        kept.removeAll()
        benchmark.startMeasurement()
        for position in keptCursor.next(CacheBatch.diskHits) {
            let data = try Data(contentsOf: keptFiles.file("blob-\(keptCursor.order[position])"))
            if data.count != BlobFixture.size { benchmark.error("short file") }
            kept.append(data)
        }
        benchmark.stopMeasurement()
    } setup: {
        let created = try TemporaryFolder("blob-kept")
        for index in 0..<BlobFixture.count { try created.writeQuickly(BlobFixture.body, to: "blob-\(index)") }
        keptFiles = created
        kept.reserveCapacity(CacheBatch.diskHits)
    } teardown: {
        keptFiles?.remove()
    }
}

/// Cold: every fetch is of a new URL, so it goes to the loopback server and is stored in both layers; the
/// baseline downloads new URLs of the same server with `URLSession.data(from:)`.
func registerColdFetches() {
    registerColdFetch("BlobCache cold fetch: Strata fetch", path: "cold", writes: .beforeReturning)
    // The same fetches with `.behind` persistent writes: the fetch returns once the download is in memory.
    registerColdFetch("BlobCache cold fetch: Strata fetch, writes behind", path: "behind", writes: .behind)

    var server: BlobServer?
    var plainNext = 0
    Benchmark("BlobCache cold fetch: URLSession.data(from:)") { benchmark in
        guard let server else { return }
        for _ in 0..<CacheBatch.coldFetches {
            let (data, _) = try await PlainSession.session.data(from: server.url("blob/plain-\(plainNext)"))
            plainNext += 1
            if data.count != BlobFixture.size { benchmark.error("short download") }
        }
    } setup: {
        server = try await BlobFixture.server.value
    }
}

/// A row of cold fetches through a `BlobCache` in a folder of its own: every fetch is of a new URL
/// (`/blob/<path>-<n>`), stored in both layers, `writes` saying when the disk write happens. The queued writes are
/// flushed after each iteration, outside the measured time. The cache's client sends on `transport` (by default
/// `URLSessionTransport.shared`, as `HTTPClient()` does), made in the setup; one that owns an AsyncHTTPClient client
/// shuts it down in the teardown.
func registerColdFetch(
    _ name: String,
    path: String,
    writes: BlobCache.PersistentWrites,
    transport makeTransport: @escaping @Sendable () -> any HTTPTransport = { URLSessionTransport.shared }
) {
    var folder: TemporaryFolder?
    var transport: (any HTTPTransport)?
    var cache: BlobCache?
    var server: BlobServer?
    var next = 0
    Benchmark(name) { benchmark in
        guard let cache, let server else { return }
        benchmark.startMeasurement()
        for _ in 0..<CacheBatch.coldFetches {
            let fetched = try await cache.fetchWithLayer(from: server.url("blob/\(path)-\(next)"))
            next += 1
            if fetched.origin != .network { benchmark.error("a cold fetch was answered by \(fetched.origin)") }
        }
        benchmark.stopMeasurement()
        await cache.flush()
        if cache.persistentWriteFailures > 0 { benchmark.error("a queued write failed") }
    } setup: {
        server = try await BlobFixture.server.value
        let created = try TemporaryFolder("blob-\(path)")
        folder = created
        let made = makeTransport()
        transport = made
        cache = try BlobFixture.cache(in: created, writes: writes, client: HTTPClient(transport: made))
    } teardown: {
        cache = nil
        try await TransportFixture.shutDown(transport)
        transport = nil
        folder?.remove()
    }
}

/// Context for the cold rows: the same downloads, each then written to a file of its own as Strata's default
/// `.atomic` mode writes one (a new file, then a rename over the name; no fsync): what storing a download by hand
/// costs, without a memory layer, a trailer or an index.
func registerColdFetchesWrittenByHand() {
    var server: BlobServer?
    var folder: TemporaryFolder?
    var next = 0
    Benchmark("BlobCache cold fetch: URLSession.data(from:) + file write") { benchmark in
        guard let server, let folder else { return }
        for _ in 0..<CacheBatch.coldFetches {
            let (data, _) = try await PlainSession.session.data(from: server.url("blob/written-\(next)"))
            let file = folder.file("blob-\(next)")
            let temporary = folder.file("blob-\(next).tmp")
            next += 1
            if data.count != BlobFixture.size { benchmark.error("short download") }
            try data.write(to: temporary)
            if rename(temporary.path, file.path) != 0 { benchmark.error("rename failed") }
        }
    } setup: {
        server = try await BlobFixture.server.value
        folder = try TemporaryFolder("blob-written")
    } teardown: {
        folder?.remove()
    }
}

/// 100 tasks fetch one new URL at once (the server answers after 50 ms, so they overlap); the server must
/// see exactly one request. Records the count; any other count fails the run.
func registerCoalescedFetches() {
    let requestsMetric = BenchmarkMetric.custom(
        "requests per 100 concurrent fetches",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    var folder: TemporaryFolder?
    var cache: BlobCache?
    var server: BlobServer?
    var next = 0
    Benchmark(
        "BlobCache 100 concurrent fetches of one URL: Strata",
        configuration: .init(
            metrics: [.wallClock, .throughput, requestsMetric],
            warmupIterations: 0,
            maxDuration: .seconds(2),
            maxIterations: Settings.iterations(20)
        )
    ) { benchmark in
        guard let cache, let server else { return }
        let path = "slow/\(next)"
        next += 1
        let url = server.url(path)
        let received = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<CacheBatch.concurrentFetches {
                group.addTask { try await cache.fetch(from: url).count }
            }
            return try await group.reduce(0, +)
        }
        let requests = server.requestCount(path: "/" + path)
        benchmark.measurement(requestsMetric, requests)
        if received != CacheBatch.concurrentFetches * BlobFixture.size {
            benchmark.error("the concurrent fetches received \(received) bytes")
        }
        if requests != 1 {
            benchmark.error("100 concurrent fetches of one URL made \(requests) requests, not 1")
        }
    } setup: {
        server = try await BlobFixture.server.value
        let created = try TemporaryFolder("blob-coalesce")
        folder = created
        cache = try BlobFixture.cache(in: created)
    } teardown: {
        cache = nil
        folder?.remove()
    }
}
