import BenchmarkSupport
import Foundation
import Logging
import Strata
import StrataMemory
import Synchronization

/// The data of the observability rows: a `CacheRepository` whose memory cache and memory main both hold every key,
/// read with `.cacheSync` in a shuffled order, so every read is a cache hit that never reaches main.
enum HitFixture {
    static let count = 10_000
    static let keys = Fixture.keys(count)
    static let values = Fixture.values(count, size: 256)
    static let order = Fixture.accessOrder(count)

    /// Reads per iteration.
    static let reads = 1_000

    /// A memory source holding every key.
    static func filledSource() -> MemoryDataSource<Data> {
        let source = MemoryDataSource<Data>()
        for (key, value) in zip(keys, values) { source.setValue(value, forKey: key) }
        return source
    }

    /// The cache every row reads, and the main source behind it: made once, so that every row reads the same
    /// entries in the same memory. Made per row, a row's entries sat wherever the rows before it had left the heap
    /// (the tracing rows allocate about 90 objects per read), and the same read took 160 to 480 ns from row to row.
    static let cache = filledSource()
    static let main = filledSource()

    /// The baseline: the repository with no plugin anywhere.
    static func plainRepository() -> CacheRepository<MemoryDataSource<Data>, MemoryDataSource<Data>> {
        CacheRepository(main: main, cache: cache)
    }

    /// A memory source with plugins, and the repository over two of them with plugins.
    typealias PluggedSource = PluggedDataSource<MemoryDataSource<Data>>
    typealias Plugged = PluggedRepository<CacheRepository<PluggedSource, PluggedSource>>

    /// The repository plugged alone, as the logger's documentation wires it: the repository says which of its
    /// sources answered.
    static func repositoryPlugged(_ plugin: any StrataPlugin) -> PluggedRepository<
        CacheRepository<MemoryDataSource<Data>, MemoryDataSource<Data>>
    > {
        CacheRepository(main: main, cache: cache).plugins([plugin], name: "users")
    }

    /// The repository wired as the metrics and tracing documentation shows: the plugin on the repository and on each
    /// source, so that each source's calls are counted or traced and a repository call's report names its source.
    static func pluggedRepository(_ plugin: any StrataPlugin) -> Plugged {
        CacheRepository(
            main: main.plugins([plugin], name: "main"),
            cache: cache.plugins([plugin], name: "memory")
        ).plugins([plugin], name: "users")
    }
}

/// Reads `keys[order[p]]` with `.cacheSync` for every `p` in `positions`; returns the number of values read.
@inline(never)
func readAll(
    _ repository: some GetRepository<Data>,
    keys: [String],
    order: [Int],
    positions: Range<Int>
) async -> Int {
    var hits = 0
    for position in positions {
        if (try? await repository.get(KeyQuery(keys[order[position]]), operation: .cacheSync)) != nil { hits += 1 }
    }
    return hits
}

/// A log handler that only counts the lines it is given: with its level above the plugin's, it must see none.
struct CountingLogHandler: LogHandler {
    /// Lines written through every handler of this type.
    static let lines = Atomic(0)

    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        Self.lines.add(1, ordering: .relaxed)
    }
}
