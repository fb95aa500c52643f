import Benchmark
import BenchmarkSupport
import Foundation

// The disk rows. Each row is registered through a helper that takes the operation as a closure, so a
// Strata half is one call beside its baseline, on the same fixture (the same keys, sizes and order).
// Names are "<row>: <contender>"; `scripts/benchmarks` matches on them.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Settings.configuration()

    // Reads of files already in the page cache.
    registerFileReads("File get 4 KiB: Data(contentsOf:)", fixture: ReadFixture.small) { fixture, key in
        try Data(contentsOf: fixture.folder.file(key))
    }
    registerFileReads("File get 1 MiB: Data(contentsOf:)", fixture: ReadFixture.large) { fixture, key in
        try Data(contentsOf: fixture.folder.file(key))
    }
    registerFileReads("File get 4 KiB: Strata", fixture: ReadFixture.small) { fixture, key in
        try fixture.store().value(forKey: key).orThrow(key)
    }
    registerFileReads("File get 1 MiB: Strata", fixture: ReadFixture.large) { fixture, key in
        try fixture.store().value(forKey: key).orThrow(key)
    }

    // Atomic writes of new keys (temporary file, fsync, rename).
    registerFileWrites("File put 4 KiB atomic: Data.write(.atomic)") { folder, key, data in
        try data.write(to: folder.file(key), options: .atomic)
    }
    // `.durable` flushes the file and the folder, as `Data.write(.atomic)` flushes the file.
    registerStoreWrites("File put 4 KiB atomic: Strata", durability: .durable) { store, key, data in
        try store.setValue(data, forKey: key)
    }
    // `.atomic` (temporary file and rename, no fsync): what a cache that may lose its last writes on a
    // power loss uses. Context, no baseline of its own.
    registerStoreWrites("File put 4 KiB atomic: Strata without fsync", durability: .atomic) { store, key, data in
        try store.setValue(data, forKey: key)
    }

    // Removing 10,000 entries: the raw loop a cleanup of 10,000 over-limit entries is compared with.
    registerRemovals("File cleanup 10,000 entries: removeItem loop") { folder, keys in
        for key in keys { try FileManager.default.removeItem(at: folder.file(key)) }
    }
    registerStoreCleanup("File cleanup 10,000 entries: Strata")

    // A small Codable value: encode + atomic write, read + decode.
    registerFileWrites("JSON put: JSONEncoder + Data.write(.atomic)", payload: { _ in Data() }) { folder, key, _ in
        try JSONEncoder().encode(Article.sample).write(to: folder.file(key), options: .atomic)
    }
    registerFileReads("JSON get: Data(contentsOf:) + JSONDecoder", fixture: ReadFixture.json) { fixture, key in
        try JSONDecoder().decode(Article.self, from: Data(contentsOf: fixture.folder.file(key)))
    }
    // `.durable` (fsync), as `Data.write(.atomic)` in the baseline fsyncs every file.
    registerJSONWrites("JSON put: Strata", durability: .durable) { store, key in
        try store.setValue(Article.sample, forKey: key)
    }
    // Strata's default, `.atomic` (temporary file and rename, no fsync), against the same baseline: default
    // against default.
    registerJSONWrites("JSON put: Strata default (atomic, no fsync)", durability: .atomic) { store, key in
        try store.setValue(Article.sample, forKey: key)
    }
    registerFileReads("JSON get: Strata", fixture: ReadFixture.json) { fixture, key in
        try fixture.jsonStore().value(forKey: key).orThrow(key)
    }

    // Opening a store of 100,000 entries is compared with listing a folder of 100,000 files.
    registerListing("JSON open 100,000 entries: folder listing") { folder in
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).count
    }
    registerJSONOpen("JSON open 100,000 entries: Strata")

    // A file-store get of 1 KiB at 1,000 and at 100,000 entries; `Data(contentsOf:)` over folders of as many
    // files shows what the file system itself adds.
    let sizes: [(String, @Sendable () -> ScalingFixture)] = [("1k", { .small }), ("100k", { .large })]
    for (label, fixture) in sizes {
        registerScalingReads("File get scaling: Strata \(label)", fixture: fixture, prepare: { _ = $0.store() }) {
            fixture,
            key in
            try fixture.store().value(forKey: key).orThrow(key)
        }
        registerScalingReads("File get scaling: Data(contentsOf:) \(label)", fixture: fixture) { fixture, key in
            try Data(contentsOf: fixture.folder.file(key))
        }
    }
}
