import BenchmarkSupport
import Foundation
import Strata
import StrataMemory

/// Reads or writes per iteration and per task.
let operationsPerTask = 1_000

/// The data of the get-hit rows: 100,000 keys with 256-byte values, read in a shuffled order.
enum GetFixture {
    static let count = 100_000
    static let keys = Fixture.keys(count)
    static let values = Fixture.values(count, size: 256)
    static let order = Fixture.accessOrder(count)

    static let strata: MemoryDataSource<Data> = filledSource()
    static let dictionary = LockedDictionary(Dictionary(uniqueKeysWithValues: zip(keys, values)))
    static let nsCache: FoundationCache = {
        let cache = FoundationCache()
        for (key, value) in zip(keys, values) { cache.setValue(value, forKey: key) }
        return cache
    }()

    /// A `CacheRepository` whose cache and main both hold every key (a cache hit never reaches main).
    static let repository = CacheRepository(main: filledSource(), cache: filledSource())

    /// A `CacheRepository` whose main holds every key and whose cache keeps one entry: a read of the shuffled
    /// order misses the cache, shares its main read through the coalescer and stores the value (evicting one).
    static let missingRepository = CacheRepository(
        main: filledSource(),
        cache: MemoryDataSource<Data>(countLimit: 1)
    )

    static func filledSource() -> MemoryDataSource<Data> {
        let source = MemoryDataSource<Data>()
        for (key, value) in zip(keys, values) { source.setValue(value, forKey: key) }
        return source
    }
}

/// The data of the put rows: a count limit of 10,000 and 100,000 keys written in a cycle, so every put to
/// the memory source is a new key that evicts the least recently used one.
enum PutFixture {
    static let countLimit = 10_000
    static let keys = Fixture.keys(100_000, prefix: "put-")
    static let values = GetFixture.values

    /// Full at the limit with the keys that the cycle reaches last.
    static func strata() -> MemoryDataSource<Data> {
        let source = MemoryDataSource<Data>(countLimit: countLimit)
        for index in (keys.count - countLimit)..<keys.count { source.setValue(values[index], forKey: keys[index]) }
        return source
    }

    /// Holds every key already, so a put replaces a value and the dictionary never grows.
    static func dictionary() -> LockedDictionary<Data> {
        LockedDictionary(Dictionary(uniqueKeysWithValues: zip(keys, values)))
    }
}

/// The data of the scaling rows: the same read at 1,000 and at 1,000,000 entries (64-byte values).
struct ScalingFixture: Sendable {
    let keys: [String]
    let order: [Int]
    let strata: MemoryDataSource<Data>
    let dictionary: LockedDictionary<Data>

    init(count: Int) {
        keys = Fixture.keys(count, prefix: "scale-")
        order = Fixture.accessOrder(count)
        let values = Fixture.values(count, size: 64)
        strata = MemoryDataSource<Data>()
        for (key, value) in zip(keys, values) { strata.setValue(value, forKey: key) }
        dictionary = LockedDictionary(Dictionary(uniqueKeysWithValues: zip(keys, values)))
    }

    static let small = ScalingFixture(count: 1_000)
    static let large = ScalingFixture(count: 1_000_000)
}
