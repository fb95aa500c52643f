import Foundation
import Strata
import StrataMemory
import StrataTesting
import Testing

/// The list rule through a repository: a cache that never stored a list answer sends CacheSync to main.
struct MemoryDataSourceListRuleTests {
    struct User: Sendable, Equatable {
        var id: String
        var name: String
    }

    private static let users = [
        "1": User(id: "1", name: "Ada"), "2": User(id: "2", name: "Grace"), "3": User(id: "3", name: "Linus"),
    ]

    private static func makeCache() -> MemoryDataSource<User> {
        MemoryDataSource(configuration: .init(key: { $0.id }))
    }

    @Test func cacheSyncReadsTheListFromMainWhenTheCacheNeverStoredOne() async throws {
        let main = ScriptedDataSource<User>(Self.users)
        let cache = Self.makeCache()
        let repository = CacheRepository(main: main, cache: cache)

        let first = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)
        #expect(first.map(\.id) == ["1", "2", "3"])
        #expect(main.callCount(.getAll) == 1)
        #expect(cache.sortedKeys() == ["1", "2", "3"])

        let second = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)
        #expect(second == first)
        #expect(main.callCount(.getAll) == 1)
    }

    @Test func aStoredEmptyListIsServedFromTheCache() async throws {
        let main = ScriptedDataSource<User>(Self.users)
        try await main.delete(AllObjectsQuery())
        let cache = Self.makeCache()
        let repository = CacheRepository(main: main, cache: cache)

        #expect(try await repository.getAll(AllObjectsQuery(), operation: .cacheSync).isEmpty)
        #expect(main.callCount(.getAll) == 1)
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .cacheSync).isEmpty)
        #expect(main.callCount(.getAll) == 1)

        // Forgetting the stored answer sends the next read to main again.
        try await cache.delete(AllObjectsQuery())
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .cacheSync).isEmpty)
        #expect(main.callCount(.getAll) == 2)
    }

    @Test func aStoreWithoutAKeyFunctionRecordsOnlyAnEmptyList() async throws {
        let cache = MemoryDataSource<Int>()
        await #expect(throws: StrataError.self) { try await cache.putAll([1], in: AllObjectsQuery()) }
        await #expect(throws: StrataError.self) { try await cache.getAll(AllObjectsQuery()) }
        _ = try await cache.putAll([], in: AllObjectsQuery())
        #expect(try await cache.getAll(AllObjectsQuery()).isEmpty)
    }

    @Test func aStoredListAnswerExpiresWithTheTimeToLive() async throws {
        let clock = ManualClock()
        let cache = MemoryDataSource<Int>(configuration: .init(timeToLive: .seconds(60), clock: clock))
        _ = try await cache.putAll([], in: AllObjectsQuery())
        #expect(try await cache.getAll(AllObjectsQuery()).isEmpty)
        clock.advance(by: .seconds(60))
        await #expect(throws: StrataError.self) { try await cache.getAll(AllObjectsQuery()) }
    }

    @Test func metadataTravelsWithValidators() async throws {
        let cache = MemoryDataSource<Int>()
        let metadata = EntryMetadata(
            storedAt: Date(timeIntervalSince1970: 1_000),
            expiresAt: .distantFuture,
            eTag: "\"v1\"",
            lastModified: "Tue, 15 Nov 1994 12:45:26 GMT"
        )
        _ = try await cache.putEntry(StoredEntry(value: 1, metadata: metadata), in: KeyQuery("k"))
        #expect(try await cache.getEntry(KeyQuery("k")).metadata == metadata)
        let renewed = EntryMetadata(storedAt: Date(timeIntervalSince1970: 2_000), expiresAt: .distantFuture)
        #expect(try await cache.renewMetadata(renewed, in: KeyQuery("k")))
        #expect(try await cache.getEntry(KeyQuery("k")).metadata == renewed)
    }
}
