import Benchmark
import BenchmarkSupport
import Foundation
import Strata
import StrataMemory
import StrataNetwork
import StrataOffline

// The offline-write rows: a PUT through an `OfflineRepository` while main is up beside the same PUT through a
// `.cacheSync` `CacheRepository` (what the outbox path adds when nothing is queued), and the replay of 10,000
// queued writes beside 10,000 plain PUTs to the same loopback server. Names are "<row>: <contender>";
// `scripts/benchmarks` matches on them.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Settings.configuration()
    registerPutsWhileUp()
    registerReplay()
}

/// Operations per iteration of each row.
enum OfflineBatch {
    static let puts = 20
    static let replayed = Settings.isSmoke ? 100 : 10_000
    static let keys = 100

    /// A replay row: a few long iterations, no warm-up (each queues 10,000 writes first), and the suite's metrics.
    /// An iteration takes seconds, so its throughput (iterations a second) reads as zero and the JMH results file
    /// leaves the row out: read its times from the benchmark's own table (`--filter "Outbox replay.*"`).
    static var replayConfiguration: Benchmark.Configuration {
        .init(
            metrics: Benchmark.defaultConfiguration.metrics,
            warmupIterations: 0,
            maxDuration: .seconds(120),
            maxIterations: Settings.iterations(3)
        )
    }
}

/// A small note.
struct Note: Codable, Sendable {
    var id: String
    var text: String
}

/// The JSON source of `/notes/<key>` on `server`.
func notesSource(_ server: NotesServer) -> NetworkDataSource<Note> {
    let base = server.baseURL
    @Sendable func rule(_ method: HTTPMethod) -> NetworkRequestRule {
        { query in HTTPRequest(method, baseURL: base, path: "notes/\((query as? any KeyedQuery)?.key ?? "")") }
    }
    return NetworkDataSource(
        client: HTTPClient(),
        requestForGet: rule(.get),
        requestForPut: rule(.put),
        requestForDelete: rule(.delete)
    )
}

/// A PUT while main is up: through the outbox path (nothing queued, so no outbox I/O) and through `.cacheSync`.
func registerPutsWhileUp() {
    var server: NotesServer?
    var folder: TemporaryFolder?
    var offline: OfflineRepository<NetworkDataSource<Note>, MemoryDataSource<Note>>?
    var next = 0
    Benchmark("Offline put, main up: OfflineRepository") { benchmark in
        guard let offline else { return }
        for _ in 0..<OfflineBatch.puts {
            next += 1
            let key = "k\(next % OfflineBatch.keys)"
            let write = try await offline.put(Note(id: key, text: "note \(next)"), in: KeyQuery(key))
            if write.isPending { benchmark.error("a write was queued while main was up") }
        }
    } setup: {
        let started = try await NotesServer.start()
        server = started
        let created = try TemporaryFolder("offline-put")
        folder = created
        offline = try await OfflineRepository.open(
            main: notesSource(started),
            cache: MemoryDataSource<Note>(),
            outboxFolder: created.url.appendingPathComponent("outbox"),
            configuration: .init(replaysOnTimer: false)
        )
    } teardown: {
        await offline?.close()
        offline = nil
        await server?.stop()
        folder?.remove()
    }

    var plainServer: NotesServer?
    var repository: CacheRepository<NetworkDataSource<Note>, MemoryDataSource<Note>>?
    var plainNext = 0
    Benchmark("Offline put, main up: CacheRepository cacheSync") { _ in
        guard let repository else { return }
        for _ in 0..<OfflineBatch.puts {
            plainNext += 1
            let key = "k\(plainNext % OfflineBatch.keys)"
            blackHole(
                try await repository.put(
                    Note(id: key, text: "note \(plainNext)"),
                    in: KeyQuery(key),
                    operation: .cacheSync
                )
            )
        }
    } setup: {
        let started = try await NotesServer.start()
        plainServer = started
        repository = CacheRepository(main: notesSource(started), cache: MemoryDataSource<Note>())
    } teardown: {
        repository = nil
        await plainServer?.stop()
    }
}

/// 10,000 writes queued while main was down (not timed), then replayed by `sync()` once it is up; the baseline
/// sends 10,000 PUTs to the same kind of server one after another.
func registerReplay() {
    var server: NotesServer?
    var folder: TemporaryFolder?
    var round = 0
    Benchmark(
        "Outbox replay 10,000 writes: OfflineRepository sync",
        configuration: OfflineBatch.replayConfiguration
    ) { benchmark in
        guard let server, let folder else { return }
        round += 1
        let notes = try await OfflineRepository.open(
            main: notesSource(server),
            cache: MemoryDataSource<Note>(),
            outboxFolder: folder.url.appendingPathComponent("outbox-\(round)"),
            configuration: .init(replaysOnTimer: false)
        )
        server.isDown = true
        for index in 0..<OfflineBatch.replayed {
            let key = "k\(index % OfflineBatch.keys)"
            try await notes.put(Note(id: key, text: "note \(index)"), in: KeyQuery(key))
        }
        server.isDown = false
        benchmark.startMeasurement()
        let report = await notes.sync()
        benchmark.stopMeasurement()
        if report.delivered != OfflineBatch.replayed { benchmark.error("replayed \(report.delivered) writes") }
        await notes.close()
    } setup: {
        server = try await NotesServer.start()
        folder = try TemporaryFolder("offline-replay")
    } teardown: {
        await server?.stop()
        folder?.remove()
    }

    var plainServer: NotesServer?
    var source: NetworkDataSource<Note>?
    Benchmark(
        "Outbox replay 10,000 writes: NetworkDataSource put loop",
        configuration: OfflineBatch.replayConfiguration
    ) { _ in
        guard let source else { return }
        for index in 0..<OfflineBatch.replayed {
            let key = "k\(index % OfflineBatch.keys)"
            blackHole(try await source.put(Note(id: key, text: "note \(index)"), in: KeyQuery(key)))
        }
    } setup: {
        let started = try await NotesServer.start()
        plainServer = started
        source = notesSource(started)
    } teardown: {
        await plainServer?.stop()
    }
}
