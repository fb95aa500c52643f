import Foundation
import Strata
import StrataFile
import StrataMemory
import StrataTesting
import Testing

/// Many tasks hammer one store with mixed gets, puts, deletes and cleanups; then the store's metadata must
/// agree with its contents, with a reopen, and with every write that was acknowledged.
struct ReliabilityFileConcurrencyTests {
    static let tasks = 8
    static let operationsPerTask = 150

    /// A value that names its key and version, so a read can prove it is whole and belongs to its key.
    static func value(key: String, version: Int) -> Data {
        Data("\(key)|\(version)|".utf8)
            + Data.pattern((version &* 7_919) % 6_000, seed: UInt8(truncatingIfNeeded: version))
    }

    /// Whether `data` is exactly some version written for `key`.
    static func isWhole(_ data: Data, for key: String) -> Bool {
        let parts = data.split(separator: UInt8(ascii: "|"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, String(decoding: parts[0], as: UTF8.self) == key,
            let version = Int(String(decoding: parts[1], as: UTF8.self))
        else { return false }
        return data == value(key: key, version: version)
    }

    @Test func concurrentMixedOperationsLoseNoAcknowledgedWrite() async throws {
        // Given a store without limits, and tasks that each own eight keys and read everyone's
        let folder = try TemporaryFolder()
        let (models, expectedSize) = try await Self.runOwnedKeysMix(folder: folder)
        let reopened = try folder.makeStore()
        #expect(reopened.corruptEntriesRemoved == 0)
        #expect(reopened.totalSize == expectedSize)
        for (key, data) in models { #expect(reopened.value(forKey: key) == data, "\(key) after a reopen") }
    }

    /// Runs the owned-keys mix on a store that is closed on return; returns the model and the final size.
    private static func runOwnedKeysMix(folder: TemporaryFolder) async throws -> ([String: Data], Int) {
        let store = try folder.makeStore()

        // When every task runs its mix, keeping a model of what it acknowledged
        let models = try await withThrowingTaskGroup(of: [String: Data].self) { group in
            for task in 0..<Self.tasks {
                group.addTask {
                    var generator = SeededRandomNumberGenerator(seed: UInt64(task) + 1)
                    var model: [String: Data] = [:]
                    for step in 0..<Self.operationsPerTask {
                        let key = "t\(task)-\(Int.random(in: 0..<8, using: &generator))"
                        switch Int.random(in: 0..<100, using: &generator) {
                        case 0..<50:
                            let data = Self.value(key: key, version: step)
                            try store.setValue(data, forKey: key)
                            model[key] = data
                        case 50..<65:
                            _ = try store.removeValue(forKey: key)
                            model[key] = nil
                        case 65..<90:
                            #expect(store.value(forKey: key) == model[key], "\(key) reads its last write")
                        case 90..<95:
                            try store.removeExpired()
                        default:
                            let other = "t\(Int.random(in: 0..<Self.tasks, using: &generator))-0"
                            if let data = store.value(forKey: other) { #expect(Self.isWhole(data, for: other)) }
                        }
                        if step % 25 == 0 { await Task.yield() }
                    }
                    return model
                }
            }
            return try await group.reduce(into: [:]) { $0.merge($1) { first, _ in first } }
        }

        // Then every acknowledged write is there, and the metadata matches the contents, also after a reopen
        for (key, data) in models { #expect(store.value(forKey: key) == data, "\(key)") }
        #expect(store.count == models.count)
        #expect(Set(store.sortedKeys()) == Set(models.keys))
        #expect(store.totalSize == models.values.reduce(0) { $0 + $1.count })
        #expect(try folder.entryFiles().count == models.count)
        store.flush()
        return (models, store.totalSize)
    }

    @Test func concurrentMixedOperationsRespectTheLimits() async throws {
        // Given a store limited to 30 entries and 60,000 bytes, shared by every task
        let folder = try TemporaryFolder()
        let (keys, expectedSize) = try await Self.runSharedKeysMix(folder: folder)
        let reopened = try folder.makeStore(maxSize: 60_000, countLimit: 30)
        #expect(Set(reopened.sortedKeys()) == Set(keys))
        #expect(reopened.totalSize == expectedSize)
        #expect(reopened.corruptEntriesRemoved == 0)
    }

    /// Runs the shared-keys mix on a limited store that is closed on return; returns its keys and size.
    private static func runSharedKeysMix(folder: TemporaryFolder) async throws -> ([String], Int) {
        let store = try folder.makeStore(maxSize: 60_000, countLimit: 30)

        // When
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<Self.tasks {
                group.addTask {
                    var generator = SeededRandomNumberGenerator(seed: UInt64(task) + 100)
                    for step in 0..<Self.operationsPerTask {
                        let key = "k\(Int.random(in: 0..<100, using: &generator))"
                        switch Int.random(in: 0..<100, using: &generator) {
                        case 0..<55: try store.setValue(Self.value(key: key, version: task * 1_000 + step), forKey: key)
                        case 55..<65: _ = try store.removeValue(forKey: key)
                        case 65..<95:
                            if let data = store.value(forKey: key) { #expect(Self.isWhole(data, for: key), "\(key)") }
                        default: try store.removeExpired()
                        }
                        #expect(store.count <= 30)
                        if step % 25 == 0 { await Task.yield() }
                    }
                }
            }
            try await group.waitForAll()
        }

        // Then the limits hold, the size is the sum of the entries' sizes, and a reopen agrees
        let keys = store.sortedKeys()
        #expect(store.count <= 30)
        #expect(store.totalSize <= 60_000)
        #expect(store.totalSize == keys.compactMap { store.info(forKey: $0)?.size }.reduce(0, +))
        for key in keys { #expect(store.value(forKey: key).map { Self.isWhole($0, for: key) } == true, "\(key)") }
        #expect(try folder.entryFiles().count == keys.count)
        store.flush()
        return (keys, store.totalSize)
    }

    @Test func cacheRepositoryWithPluginsStaysConsistentUnderConcurrentUse() async throws {
        // Given a file store behind metrics and coalescing plugins, with a memory cache in front
        let folder = try TemporaryFolder()
        let file = try folder.makeStore()
        let metrics = MetricsPlugin(clock: ManualClock())
        let memory = MemoryDataSource<Data>(countLimit: 16)
        let repository = CacheRepository(
            main: file.plugins([metrics, CoalescingPlugin()]),
            cache: memory
        )

        // When tasks read, write and delete their own keys through every operation
        let models = try await withThrowingTaskGroup(of: [String: Data].self) { group in
            for task in 0..<Self.tasks {
                group.addTask {
                    var generator = SeededRandomNumberGenerator(seed: UInt64(task) + 200)
                    var model: [String: Data] = [:]
                    for step in 0..<Self.operationsPerTask {
                        let key = "t\(task)-\(Int.random(in: 0..<6, using: &generator))"
                        switch Int.random(in: 0..<100, using: &generator) {
                        case 0..<40:
                            let data = Self.value(key: key, version: step)
                            _ = try await repository.put(data, in: KeyQuery(key), operation: .default)
                            model[key] = data
                        case 40..<50:
                            try await repository.delete(KeyQuery(key), operation: .default)
                            model[key] = nil
                        default:
                            let operation: any RepositoryOperation =
                                step.isMultiple(of: 2) ? CacheSyncOperation() : MainSyncOperation()
                            do {
                                let read = try await repository.get(KeyQuery(key), operation: operation)
                                #expect(read == model[key], "\(key)")
                            } catch let error as StrataError where error.code == .notFound {
                                #expect(model[key] == nil, "\(key) was written but is not found")
                            }
                        }
                    }
                    return model
                }
            }
            return try await group.reduce(into: [:]) { $0.merge($1) { first, _ in first } }
        }

        // Then the file store holds every acknowledged write, the memory cache only copies of them, and the
        // metrics counted every call that reached the file store
        for (key, data) in models { #expect(file.value(forKey: key) == data, "\(key)") }
        #expect(Set(file.sortedKeys()) == Set(models.keys))
        #expect(memory.count <= 16)
        for key in memory.sortedKeys() { #expect(memory.value(forKey: key) == models[key], "cached \(key)") }
        let total = metrics.snapshot().total()
        #expect(total.calls > 0)
        #expect(total.errors.keys.allSatisfy { $0 == .notFound }, "\(total.errors)")
    }
}
