import Foundation
import Strata
import StrataMemory

/// Something read synchronously by key; generic loops over it are specialised, so no closure call is timed.
protocol SyncReader: Sendable {
    func read(_ key: String) -> Data?
}

/// Something read asynchronously by key.
protocol AsyncReader: Sendable {
    func read(_ key: String) async throws -> Data
}

/// Something written synchronously by key.
protocol SyncWriter: Sendable {
    func write(_ value: Data, forKey key: String)
}

/// Something written asynchronously by key.
protocol AsyncWriter: Sendable {
    func write(_ value: Data, forKey key: String) async throws
}

/// Strata's memory source through its synchronous API.
struct StrataSyncReader: SyncReader, SyncWriter {
    let source: MemoryDataSource<Data>
    func read(_ key: String) -> Data? { source.value(forKey: key) }
    func write(_ value: Data, forKey key: String) { source.setValue(value, forKey: key) }
}

/// Strata's memory source through the async data source protocol.
struct StrataAsyncReader: AsyncReader, AsyncWriter {
    let source: MemoryDataSource<Data>
    func read(_ key: String) async throws -> Data { try await source.get(KeyQuery(key)) }
    func write(_ value: Data, forKey key: String) async throws { _ = try await source.put(value, in: KeyQuery(key)) }
}

/// A `CacheRepository` over two memory sources, read with `.cacheSync`.
struct RepositoryReader: AsyncReader {
    let repository: CacheRepository<MemoryDataSource<Data>, MemoryDataSource<Data>>
    func read(_ key: String) async throws -> Data { try await repository.get(KeyQuery(key), operation: .cacheSync) }
}

/// The same repository stored type-erased, as ``AnyRepository`` (`RepositoryAssembler`) erases it.
struct ErasedRepositoryReader: AsyncReader {
    let repository: AnyRepository<Data>
    func read(_ key: String) async throws -> Data { try await repository.get(KeyQuery(key), operation: .cacheSync) }
}

/// The same repository stored as an existential, `any GetRepository<Data>`: every call goes through the
/// conformance's witness, the library's generic code unspecialised.
struct ExistentialRepositoryReader: AsyncReader {
    let repository: any GetRepository<Data>
    func read(_ key: String) async throws -> Data { try await repository.get(KeyQuery(key), operation: .cacheSync) }
}

/// The raw limit: a `Mutex`-guarded dictionary.
struct DictionaryReader: SyncReader, SyncWriter {
    let dictionary: LockedDictionary<Data>
    func read(_ key: String) -> Data? { dictionary.value(forKey: key) }
    func write(_ value: Data, forKey key: String) { dictionary.setValue(value, forKey: key) }
}

/// Foundation's `NSCache`.
struct NSCacheReader: SyncReader {
    let cache: FoundationCache
    func read(_ key: String) -> Data? { cache.value(forKey: key) }
}

/// Reads `keys[order[p]]` for every `p` in `positions`; returns the number of hits.
@inline(never)
func readAll(_ reader: some SyncReader, keys: [String], order: [Int], positions: Range<Int>) -> Int {
    var hits = 0
    for position in positions where reader.read(keys[order[position]]) != nil { hits += 1 }
    return hits
}

/// Reads `keys[order[p]]` for every `p` in `positions`; returns the number of hits.
@inline(never)
func readAll(_ reader: some AsyncReader, keys: [String], order: [Int], positions: Range<Int>) async -> Int {
    var hits = 0
    for position in positions {
        if (try? await reader.read(keys[order[position]])) != nil { hits += 1 }
    }
    return hits
}

/// Writes `values[i % values.count]` under `keys[i % keys.count]` for every `i` in `positions`.
@inline(never)
func writeAll(_ writer: some SyncWriter, keys: [String], values: [Data], positions: Range<Int>) {
    for position in positions {
        writer.write(values[position % values.count], forKey: keys[position % keys.count])
    }
}

/// Writes `values[i % values.count]` under `keys[i % keys.count]` for every `i` in `positions`.
@inline(never)
func writeAll(_ writer: some AsyncWriter, keys: [String], values: [Data], positions: Range<Int>) async throws {
    for position in positions {
        try await writer.write(values[position % values.count], forKey: keys[position % keys.count])
    }
}
