import Benchmark
import BenchmarkSupport
import Foundation
import Strata
import StrataMemory

// Each Strata figure has its baseline beside it, on the same data: `scripts/benchmarks` divides one by the
// other within a run. Names are "<row>: <contender>"; the script matches on them.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Settings.configuration(warmup: 5)

    registerGetBenchmarks(tasks: 1)
    registerGetBenchmarks(tasks: 2)
    registerPutBenchmarks()
    registerRepositoryBenchmarks()
    registerScalingBenchmarks()
    registerResidentMemoryBenchmark()
}

/// Get, hit, 100,000 entries: Strata's sync and async API against a `Mutex` dictionary and `NSCache`.
func registerGetBenchmarks(tasks: Int) {
    let row = "Memory get hit, \(tasks) task\(tasks == 1 ? "" : "s")"
    registerReads("\(row): Strata value(forKey:)", tasks: tasks) { StrataSyncReader(source: GetFixture.strata) }
    registerReads("\(row): Strata async get", tasks: tasks) { StrataAsyncReader(source: GetFixture.strata) }
    registerReads("\(row): Mutex dictionary", tasks: tasks) { DictionaryReader(dictionary: GetFixture.dictionary) }
    registerReads("\(row): NSCache", tasks: tasks) { NSCacheReader(cache: GetFixture.nsCache) }
}

/// Put of new keys at a count limit of 10,000 (every put evicts) against a dictionary that never evicts.
func registerPutBenchmarks() {
    let row = "Memory put at count limit"
    registerWrites("\(row): Strata setValue", make: { StrataSyncReader(source: PutFixture.strata()) })
    registerWrites("\(row): Strata async put", make: { StrataAsyncReader(source: PutFixture.strata()) })
    registerWrites("\(row): Mutex dictionary", make: { DictionaryReader(dictionary: PutFixture.dictionary()) })
}

/// A `.cacheSync` hit through `CacheRepository` against the same cache source's async get, and through the same
/// repository stored type-erased against it held by its type; and a miss, whose main read is shared through the
/// coalescer and stored, against the main source's async get.
func registerRepositoryBenchmarks() {
    let row = "CacheRepository cacheSync hit"
    registerReads("\(row): Strata repository", tasks: 1) { RepositoryReader(repository: GetFixture.repository) }
    registerReads("\(row): cache source get", tasks: 1) {
        StrataAsyncReader(source: GetFixture.repository.cache)
    }
    // The same repository stored type-erased: as `AnyRepository`, and as an existential.
    registerReads("\(row): AnyRepository", tasks: 1) {
        ErasedRepositoryReader(repository: AnyRepository(GetFixture.repository))
    }
    registerReads("\(row): any GetRepository", tasks: 1) {
        ExistentialRepositoryReader(repository: GetFixture.repository)
    }
    let miss = "CacheRepository cacheSync miss"
    registerReads("\(miss): Strata repository", tasks: 1) { RepositoryReader(repository: GetFixture.missingRepository) }
    registerReads("\(miss): main source get", tasks: 1) {
        StrataAsyncReader(source: GetFixture.missingRepository.main)
    }
}

/// The same get at 1,000 and 1,000,000 entries; the dictionary's figures show what the hardware adds.
func registerScalingBenchmarks() {
    let sizes: [(String, @Sendable () -> ScalingFixture)] = [("1k", { .small }), ("1M", { .large })]
    for (label, fixture) in sizes {
        registerReads(
            "Memory get scaling: Strata \(label)",
            tasks: 1,
            keys: { fixture().keys },
            order: { fixture().order }
        ) {
            StrataSyncReader(source: fixture().strata)
        }
        registerReads(
            "Memory get scaling: dictionary \(label)",
            tasks: 1,
            keys: { fixture().keys },
            order: { fixture().order }
        ) {
            DictionaryReader(dictionary: fixture().dictionary)
        }
    }
}

/// Writes 1 GiB (16,384 × 64 KiB) through a memory source capped at 64 MiB of cost; records the resident
/// set size at the start and its peak growth, in KiB.
func registerResidentMemoryBenchmark() {
    let startMetric = BenchmarkMetric.custom("RSS at start (KiB)", polarity: .prefersSmaller, useScalingFactor: false)
    let growthMetric = BenchmarkMetric.custom(
        "peak RSS growth (KiB)",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    let blobSize = 64 << 10
    let blobCount = 16_384
    Benchmark(
        "Memory RSS, 1 GiB through a 64 MiB cap: Strata",
        configuration: .init(
            metrics: [.wallClock, .throughput, startMetric, growthMetric],
            warmupIterations: 0,
            maxDuration: .seconds(60),
            maxIterations: 1
        )
    ) { benchmark in
        let source = MemoryDataSource<Data>(configuration: .init(costLimit: 64 << 20))
        let start = ResidentMemory.current() ?? 0
        var peak = start
        for index in 0..<blobCount {
            // A fresh buffer per write, every page touched, as a download would deliver it.
            let blob = Data(repeating: UInt8(truncatingIfNeeded: index), count: blobSize)
            source.setValue(blob, forKey: "blob-\(index)")
            if index % 16 == 15 { peak = max(peak, ResidentMemory.current() ?? 0) }
        }
        if source.totalCost > 64 << 20 { benchmark.error("the memory source kept \(source.totalCost) bytes") }
        benchmark.measurement(startMetric, start >> 10)
        benchmark.measurement(growthMetric, (peak - start) >> 10)
    }
}

// MARK: - Registration helpers

/// Registers a read benchmark over the get fixture (or the given keys and order): each iteration reads
/// `operationsPerTask` keys in each of `tasks` concurrent tasks and fails the run on any miss.
func registerReads<Reader: SyncReader>(
    _ name: String,
    tasks: Int,
    keys: @escaping @Sendable () -> [String] = { GetFixture.keys },
    order: @escaping @Sendable () -> [Int] = { GetFixture.order },
    make: @escaping @Sendable () -> Reader
) {
    var cursor = Cursor(order: [])
    var reader: Reader?
    Benchmark(name) { benchmark in
        guard let reader else { return }
        let positions = cursor.next(operationsPerTask * tasks)
        let (keys, order) = (keys(), cursor.order)
        let hits: Int
        if tasks == 1 {
            hits = readAll(reader, keys: keys, order: order, positions: positions)
        } else {
            hits = await withTaskGroup(of: Int.self) { group in
                for slice in split(positions, into: tasks) {
                    group.addTask { readAll(reader, keys: keys, order: order, positions: slice) }
                }
                return await group.reduce(0, +)
            }
        }
        if hits != positions.count { benchmark.error("\(positions.count - hits) misses in \(name)") }
    } setup: {
        cursor = Cursor(order: order())
        reader = make()
    }
}

/// The async counterpart of the sync ``registerReads(_:tasks:keys:order:make:)``.
func registerReads<Reader: AsyncReader>(
    _ name: String,
    tasks: Int,
    keys: @escaping @Sendable () -> [String] = { GetFixture.keys },
    order: @escaping @Sendable () -> [Int] = { GetFixture.order },
    make: @escaping @Sendable () -> Reader
) {
    var cursor = Cursor(order: [])
    var reader: Reader?
    Benchmark(name) { benchmark in
        guard let reader else { return }
        let positions = cursor.next(operationsPerTask * tasks)
        let (keys, order) = (keys(), cursor.order)
        let hits: Int
        if tasks == 1 {
            hits = await readAll(reader, keys: keys, order: order, positions: positions)
        } else {
            hits = await withTaskGroup(of: Int.self) { group in
                for slice in split(positions, into: tasks) {
                    group.addTask { await readAll(reader, keys: keys, order: order, positions: slice) }
                }
                return await group.reduce(0, +)
            }
        }
        if hits != positions.count { benchmark.error("\(positions.count - hits) misses in \(name)") }
    } setup: {
        cursor = Cursor(order: order())
        reader = make()
    }
}

/// Registers a put benchmark over the put fixture: each iteration writes the next `operationsPerTask` keys
/// of the cycle.
func registerWrites<Writer: SyncWriter>(_ name: String, make: @escaping @Sendable () -> Writer) {
    var next = 0
    var writer: Writer?
    Benchmark(name) { _ in
        guard let writer else { return }
        writeAll(writer, keys: PutFixture.keys, values: PutFixture.values, positions: next..<(next + operationsPerTask))
        next = (next + operationsPerTask) % PutFixture.keys.count
    } setup: {
        writer = make()
    }
}

/// The async counterpart of the sync ``registerWrites(_:make:)``.
func registerWrites<Writer: AsyncWriter>(_ name: String, make: @escaping @Sendable () -> Writer) {
    var next = 0
    var writer: Writer?
    Benchmark(name) { _ in
        guard let writer else { return }
        try await writeAll(
            writer,
            keys: PutFixture.keys,
            values: PutFixture.values,
            positions: next..<(next + operationsPerTask)
        )
        next = (next + operationsPerTask) % PutFixture.keys.count
    } setup: {
        writer = make()
    }
}

/// `range` cut into `parts` consecutive slices of equal length.
func split(_ range: Range<Int>, into parts: Int) -> [Range<Int>] {
    let length = range.count / parts
    return (0..<parts).map { part in
        (range.lowerBound + part * length)..<(range.lowerBound + (part + 1) * length)
    }
}
