import Benchmark
import BenchmarkSupport
import Foundation
import StrataFile
import StrataJSONFile
import Synchronization

/// Operations per iteration of each kind of file row.
enum FileBatch {
    static let smallReads = 100
    static let largeReads = 4
    static let writes = 10
    static let removals = 10_000
    /// Entries of the open and listing rows (1,000 in a smoke run, which only checks that the rows run).
    static let listed = Settings.isSmoke ? 1_000 : 100_000
    /// Entries of the large store of the scaling rows (2,000 in a smoke run).
    static let scaled = Settings.isSmoke ? 2_000 : 100_000
    static let scalingReads = 100
}

/// A small Codable value, as an app would keep in a JSON store.
struct Article: Codable, Sendable {
    var id: Int
    var title: String
    var tags: [String]
    var published: Date
    var score: Double

    static let sample = Article(
        id: 42,
        title: "Strata keeps the bytes you asked for",
        tags: ["cache", "swift", "linux"],
        published: Date(timeIntervalSince1970: 1_750_000_000),
        score: 4.5
    )
}

/// Files laid out once per benchmark process and read in a shuffled order (warm page cache).
final class ReadFixture: Sendable {
    let folder: TemporaryFolder
    let keys: [String]
    let order: [Int]
    /// Strata's stores over the same keys, opened on first use (see `StrataFixtures.swift`).
    let stores = Mutex(Stores())

    struct Stores {
        var file: FileDataSource?
        var json: JSONFileDataSource<Article>?
    }

    init(name: String, count: Int, payload: Data) {
        do {
            folder = try TemporaryFolder(name)
            keys = Fixture.keys(count, prefix: "entry-")
            for key in keys { try folder.writeQuickly(payload, to: key) }
            order = Fixture.accessOrder(count)
        } catch {
            preconditionFailure("cannot lay out the \(name) fixture: \(error)")
        }
    }

    /// 2,000 files of 4 KiB.
    static let small = ReadFixture(name: "get4k", count: 2_000, payload: Fixture.values(1, size: 4 << 10)[0])
    /// 200 files of 1 MiB.
    static let large = ReadFixture(name: "get1m", count: 200, payload: Fixture.values(1, size: 1 << 20)[0])
    /// 2,000 JSON files of one small Codable value.
    static let json: ReadFixture = {
        do {
            return ReadFixture(name: "json", count: 2_000, payload: try JSONEncoder().encode(Article.sample))
        } catch {
            preconditionFailure("cannot encode the sample: \(error)")
        }
    }()
}

/// Registers a read row: each iteration reads the next batch of keys of `fixture` in its shuffled order.
func registerFileReads<Result>(
    _ name: String,
    fixture: @autoclosure @escaping @Sendable () -> ReadFixture,
    read: @escaping (ReadFixture, String) throws -> Result
) {
    var position = 0
    Benchmark(name) { benchmark in
        let fixture = fixture()
        let batch = fixture.keys.count >= 1_000 ? FileBatch.smallReads : FileBatch.largeReads
        for _ in 0..<batch {
            blackHole(try read(fixture, fixture.keys[fixture.order[position]]))
            position = (position + 1) % fixture.order.count
        }
    } setup: {
        _ = fixture()
    } teardown: {
        fixture().folder.remove()
    }
}

/// Registers a write row: each iteration writes `FileBatch.writes` new keys of 4 KiB into a folder of
/// its own.
func registerFileWrites(
    _ name: String,
    payload: @escaping @Sendable (Int) -> Data = { _ in Fixture.values(1, size: 4 << 10)[0] },
    write: @escaping (TemporaryFolder, String, Data) throws -> Void
) {
    var folder: TemporaryFolder?
    var next = 0
    let data = payload(0)
    Benchmark(name) { _ in
        guard let folder else { return }
        for _ in 0..<FileBatch.writes {
            try write(folder, "entry-\(next)", data)
            next += 1
        }
    } setup: {
        folder = try TemporaryFolder("put")
    } teardown: {
        folder?.remove()
    }
}

/// Registers a removal row: each iteration lays out `FileBatch.removals` files (not measured), then
/// measures `remove` over their keys.
func registerRemovals(_ name: String, remove: @escaping (TemporaryFolder, [String]) throws -> Void) {
    let keys = Fixture.keys(FileBatch.removals, prefix: "entry-")
    let payload = Fixture.values(1, size: 4 << 10)[0]
    Benchmark(
        name,
        configuration: .init(
            warmupIterations: Settings.warmup(1),
            maxDuration: .seconds(5),
            maxIterations: Settings.iterations(10)
        )
    ) { benchmark in
        let folder = try TemporaryFolder("cleanup")
        defer { folder.remove() }
        for key in keys { try folder.writeQuickly(payload, to: key) }
        benchmark.startMeasurement()
        try remove(folder, keys)
        benchmark.stopMeasurement()
    }
}

/// Files of 1 KiB in one folder, `count` of them, for the scaling rows: laid out on first use and read in a
/// shuffled order.
final class ScalingFixture: Sendable {
    let folder: TemporaryFolder
    let keys: [String]
    let order: [Int]
    let payload = Fixture.values(1, size: 1 << 10)[0]
    /// A `FileDataSource` over the same keys and bytes, filled on first use (see `StrataFixtures.swift`).
    let stores = Mutex<FileDataSource?>(nil)

    init(name: String, count: Int) {
        do {
            folder = try TemporaryFolder(name)
            keys = Fixture.keys(count, prefix: "entry-")
            for key in keys { try folder.writeQuickly(payload, to: key) }
            order = Fixture.accessOrder(count)
        } catch {
            preconditionFailure("cannot lay out the \(name) fixture: \(error)")
        }
    }

    static let small = ScalingFixture(name: "scale1k", count: 1_000)
    static let large = ScalingFixture(name: "scale100k", count: FileBatch.scaled)
}

/// Registers a scaling read row: each iteration reads the next `FileBatch.scalingReads` keys of `fixture`.
func registerScalingReads<Result>(
    _ name: String,
    fixture: @escaping @Sendable () -> ScalingFixture,
    prepare: @escaping @Sendable (ScalingFixture) -> Void = { _ in },
    read: @escaping (ScalingFixture, String) throws -> Result
) {
    var cursor = Cursor(order: [])
    Benchmark(name) { _ in
        let fixture = fixture()
        for position in cursor.next(FileBatch.scalingReads) {
            blackHole(try read(fixture, fixture.keys[cursor.order[position]]))
        }
    } setup: {
        cursor = Cursor(order: fixture().order)
        prepare(fixture())
    } teardown: {
        fixture().folder.remove()
    }
}

/// Registers a listing row over a folder of `FileBatch.listed` empty files, laid out once.
func registerListing(_ name: String, list: @escaping (TemporaryFolder) throws -> Int) {
    var folder: TemporaryFolder?
    Benchmark(
        name,
        configuration: .init(
            warmupIterations: Settings.warmup(1),
            maxDuration: .seconds(3),
            maxIterations: Settings.iterations(20)
        )
    ) { benchmark in
        guard let folder else { return }
        let count = try list(folder)
        if count != FileBatch.listed { benchmark.error("listed \(count) of \(FileBatch.listed) files") }
    } setup: {
        let created = try TemporaryFolder("listing")
        for key in Fixture.keys(FileBatch.listed, prefix: "entry-") { try created.writeQuickly(Data(), to: key) }
        folder = created
    } teardown: {
        folder?.remove()
    }
}
