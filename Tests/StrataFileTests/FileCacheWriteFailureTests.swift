import Foundation
import Strata
import StrataFile
import StrataMemory
import Testing

/// A cache write that fails after main took a write or answered a read: the file store keeps the entry it had when
/// it refuses a value (too large, a full disk), so the repository removes that older copy.
struct FileCacheWriteFailureTests {
    /// Before, the cache kept the older value and served it as valid until it expired: under `.bestEffort` the put
    /// returned success and every later read gave the value it replaced; under `.required` the error said the cache
    /// write failed, and the reads after it still gave the older value.
    @Test(arguments: [CacheRepository<MemoryDataSource<Data>, FileDataSource>.CacheWritePolicy.bestEffort, .required])
    func aValueTheCacheRefusesLeavesNoOlderCopyToServe(
        policy: CacheRepository<MemoryDataSource<Data>, FileDataSource>.CacheWritePolicy
    ) async throws {
        // Given a file cache of at most 100 bytes holding a small value that main holds too
        let folder = try TemporaryFolder()
        let repository = CacheRepository(
            main: MemoryDataSource<Data>(),
            cache: try folder.makeStore(maxSize: 100),
            configuration: .init(cacheWrites: policy)
        )
        _ = try await repository.put(Data("small".utf8), in: KeyQuery("k"), operation: .default)
        // When a value larger than the cache takes is put: main stores it, the cache refuses it
        let large = Data(repeating: 7, count: 200)
        do {
            _ = try await repository.put(large, in: KeyQuery("k"), operation: .default)
            #expect(policy == .bestEffort)
        } catch let error as StrataError {
            #expect(policy == .required && error.code == .cacheSyncFailed)
        }
        // Then the cache holds no copy, and a cache-first read gives main's value (under `.required`, as the payload
        // of the write-back the cache refuses again)
        #expect(repository.cache.value(forKey: "k") == nil)
        do {
            #expect(try await repository.get(KeyQuery("k"), operation: .default) == large)
        } catch let error as StrataError {
            #expect(policy == .required && error.code == .cacheSyncFailed && error.payload as? Data == large)
        }
    }
}
