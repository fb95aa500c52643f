import Benchmark
import BenchmarkSupport
import Foundation
import Strata
import StrataFile
import StrataJSONFile
import StrataTesting

extension Optional {
    /// The value, or a not-found error naming `key` (a miss fails the benchmark).
    func orThrow(_ key: String) throws -> Wrapped {
        guard let self else { throw StrataError.notFound("no entry for \(key)") }
        return self
    }
}

extension ReadFixture {
    /// A `FileDataSource` holding the fixture's keys with the fixture's bytes, opened once per process.
    func store() -> FileDataSource {
        stores.withLock { stores in
            if let store = stores.file { return store }
            do {
                let store = try FileDataSource(
                    configuration: .init(location: .url(folder.url), identifier: "strata-store")
                )
                for key in keys { try store.setValue(Data(contentsOf: folder.file(key)), forKey: key) }
                store.flush()
                stores.file = store
                return store
            } catch {
                preconditionFailure("cannot fill the file store: \(error)")
            }
        }
    }

    /// A `JSONFileDataSource` holding the fixture's keys with the sample value, opened once per process.
    func jsonStore() -> JSONFileDataSource<Article> {
        stores.withLock { stores in
            if let store = stores.json { return store }
            do {
                let store = try JSONFileDataSource<Article>(folder: folder.file("strata-json"))
                for key in keys { try store.setValue(Article.sample, forKey: key) }
                stores.json = store
                return store
            } catch {
                preconditionFailure("cannot fill the JSON store: \(error)")
            }
        }
    }
}

/// Registers a Strata file-store write row: each iteration writes `FileBatch.writes` new 4 KiB keys.
func registerStoreWrites(
    _ name: String,
    durability: StoreDurability,
    write: @escaping (FileDataSource, String, Data) throws -> Void
) {
    var folder: TemporaryFolder?
    var store: FileDataSource?
    var next = 0
    let data = Fixture.values(1, size: 4 << 10)[0]
    Benchmark(name) { _ in
        guard let store else { return }
        for _ in 0..<FileBatch.writes {
            try write(store, "entry-\(next)", data)
            next += 1
        }
    } setup: {
        let created = try TemporaryFolder("strata-put")
        folder = created
        store = try FileDataSource(
            configuration: .init(location: .url(created.url), identifier: "store", durability: durability)
        )
    } teardown: {
        store = nil
        folder?.remove()
    }
}

extension ScalingFixture {
    /// A `FileDataSource` holding the fixture's keys with its bytes, filled once per process.
    func store() -> FileDataSource {
        stores.withLock { store in
            if let store { return store }
            do {
                let created = try FileDataSource(
                    configuration: .init(location: .url(folder.url), identifier: "strata-store")
                )
                for key in keys { try created.setValue(payload, forKey: key) }
                created.flush()
                store = created
                return created
            } catch {
                preconditionFailure("cannot fill the file store: \(error)")
            }
        }
    }
}

/// Registers the Strata half of the JSON open row: a store of `FileBatch.listed` entries is written once
/// per process (not measured, it takes a while), then each iteration opens it (replaying its index).
func registerJSONOpen(_ name: String) {
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
        let store = try JSONFileDataSource<Article>(folder: folder.file("store"))
        if store.count != FileBatch.listed { benchmark.error("opened \(store.count) of \(FileBatch.listed) entries") }
        blackHole(store)
    } setup: {
        let created = try TemporaryFolder("json-open")
        let store = try JSONFileDataSource<Article>(folder: created.file("store"))
        for key in Fixture.keys(FileBatch.listed, prefix: "entry-") { try store.setValue(Article.sample, forKey: key) }
        folder = created
    } teardown: {
        folder?.remove()
    }
}

/// Registers a Strata JSON-store write row: each iteration writes `FileBatch.writes` new keys.
func registerJSONWrites(
    _ name: String,
    durability: StoreDurability,
    write: @escaping (JSONFileDataSource<Article>, String) throws -> Void
) {
    var folder: TemporaryFolder?
    var store: JSONFileDataSource<Article>?
    var next = 0
    Benchmark(name) { _ in
        guard let store else { return }
        for _ in 0..<FileBatch.writes {
            try write(store, "entry-\(next)")
            next += 1
        }
    } setup: {
        let created = try TemporaryFolder("strata-json-put")
        folder = created
        store = try JSONFileDataSource<Article>(
            configuration: .init(folder: created.file("store"), durability: durability)
        )
    } teardown: {
        store = nil
        folder?.remove()
    }
}

/// Registers the Strata cleanup row: each iteration fills a store with `FileBatch.removals` entries that
/// have a lifetime of one second (not measured), moves its clock past it, then measures `removeExpired()`.
func registerStoreCleanup(_ name: String) {
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
        let folder = try TemporaryFolder("strata-cleanup")
        defer { folder.remove() }
        let clock = ManualClock()
        let store = try FileDataSource(
            configuration: .init(
                location: .url(folder.url),
                identifier: "store",
                timeToLive: .seconds(1),
                clock: clock
            )
        )
        for key in keys { try store.setValue(payload, forKey: key) }
        clock.advance(by: .seconds(2))
        benchmark.startMeasurement()
        try store.removeExpired()
        benchmark.stopMeasurement()
        if !store.sortedKeys().isEmpty { benchmark.error("\(store.sortedKeys().count) entries left after cleanup") }
    }
}
