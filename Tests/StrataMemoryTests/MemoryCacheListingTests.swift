import Strata
import StrataMemory
import StrataTesting
import Testing

/// A listing (every entry, a page) read through a `CacheRepository` whose cache is a memory store: the cache answers
/// it only from a list answer it stored, never from the keys single reads happened to write back.
struct MemoryCacheListingTests {
    private struct User: Sendable, Equatable {
        let id: String
    }

    private static func repository() -> (
        repository: CacheRepository<ScriptedDataSource<User>, MemoryDataSource<User>>,
        main: ScriptedDataSource<User>,
        cache: MemoryDataSource<User>
    ) {
        let main = ScriptedDataSource(["1": User(id: "1"), "2": User(id: "2"), "3": User(id: "3")])
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        return (CacheRepository(main: main, cache: cache), main, cache)
    }

    /// Before, the cache listed its one key as the whole answer: "all users" was the one user read so far, and main
    /// was never asked.
    @Test func everyEntryIsMainsAnswerUntilTheCacheStoredOne() async throws {
        let (repository, main, _) = Self.repository()
        _ = try await repository.get(IdQuery("2"), operation: .cacheSync)

        let first = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)
        let second = try await repository.getAll(AllObjectsQuery(), operation: .default)

        #expect(Set(first.map(\.id)) == ["1", "2", "3"])
        #expect(Set(second.map(\.id)) == ["1", "2", "3"])
        #expect(main.callCount(.getAll) == 1, "the second list came from the stored answer")
    }

    /// Before, a list answer main sent without a value the cache still held (deleted on the server since) was stored,
    /// and the cache then listed every key it held: the deleted value came back in every list read from the cache.
    @Test func aValueMainsNewListLeavesOutIsNotListedUntilWrittenAgain() async throws {
        let (repository, main, cache) = Self.repository()
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .cacheSync).count == 3)

        // When 3 is deleted on the server, and the list is read from main again (a pull to refresh)
        try await main.delete(IdQuery("3"))
        let refreshed = try await repository.getAll(AllObjectsQuery(), operation: .mainSync)
        #expect(Set(refreshed.map(\.id)) == ["1", "2"])

        // Then the cache's list is main's, without 3, though the cache still holds it
        let fromCache = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)
        #expect(Set(fromCache.map(\.id)) == ["1", "2"])
        #expect(main.callCount(.getAll) == 2, "the list came from the stored answer")
        #expect(cache.value(forKey: "3") == User(id: "3"))

        // And a value written again is listed again
        _ = try await repository.put(User(id: "3"), in: IdQuery("3"), operation: .cache)
        let written = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)
        #expect(Set(written.map(\.id)) == ["1", "2", "3"])
    }

    /// Before, storing main's answer in a cache with room for fewer entries evicted some, and what was left was
    /// served as every entry from then on: main was not asked again.
    @Test func aStoredAnswerTheCacheCouldNotKeepWholeIsNotServed() async throws {
        let main = ScriptedDataSource(["1": User(id: "1"), "2": User(id: "2"), "3": User(id: "3")])
        let cache = MemoryDataSource<User>(configuration: .init(countLimit: 2, key: { $0.id }))
        let repository = CacheRepository(main: main, cache: cache)

        let first = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)
        let second = try await repository.getAll(AllObjectsQuery(), operation: .default)

        #expect(Set(first.map(\.id)) == ["1", "2", "3"])
        #expect(Set(second.map(\.id)) == ["1", "2", "3"])
        #expect(main.callCount(.getAll) == 2, "the cache holds two of the three: the list is main's again")
    }

    /// Before, a value of main's answer that costs more than the whole cost limit, under a key the cache did not
    /// hold, was silently not kept, and what was left was served as every entry: main was not asked again.
    @Test func aStoredAnswerWithAValueOverTheCostLimitIsNotServed() async throws {
        let main = ScriptedDataSource(["1": User(id: "1"), "2": User(id: "2"), "3": User(id: "3")])
        let cache = MemoryDataSource<User>(
            configuration: .init(costLimit: 10, cost: { $0.id == "3" ? 100 : 1 }, key: { $0.id })
        )
        let repository = CacheRepository(main: main, cache: cache)

        let first = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)
        let second = try await repository.getAll(AllObjectsQuery(), operation: .default)

        #expect(Set(first.map(\.id)) == ["1", "2", "3"])
        #expect(Set(second.map(\.id)) == ["1", "2", "3"])
        #expect(main.callCount(.getAll) == 2, "the cache could not keep the third: the list is main's again")
    }

    /// Before, `trim()` (what an app calls on memory pressure) kept the stored answer, and the emptied cache then
    /// answered every listing with `[]` until the answer expired (never, without a time to live).
    @Test func aTrimmedCacheAsksMainForTheListAgain() async throws {
        let (repository, main, cache) = Self.repository()
        _ = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)

        cache.trim()
        let again = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)

        #expect(Set(again.map(\.id)) == ["1", "2", "3"])
        #expect(main.callCount(.getAll) == 2)
    }

    /// Before, a page read with an empty cache failed with `cacheSyncFailed` (a page cannot be stored), and once
    /// anything was cached, the page was cut from the cache's own keys.
    @Test func aPageIsMainsAnswerAndIsNotStored() async throws {
        let main = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        _ = try await main.putAll([User(id: "1"), User(id: "2"), User(id: "3")], in: AllObjectsQuery())
        let cache = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let repository = CacheRepository(main: main, cache: cache)
        let firstPage = PaginationOffsetLimitQuery(offset: 0, limit: 2)

        let page = try await repository.getAll(firstPage, operation: .default)
        _ = try await repository.get(IdQuery("3"), operation: .cacheSync)
        let again = try await repository.getAll(firstPage, operation: .default)

        #expect(page.map(\.id) == ["1", "2"])
        #expect(again == page)
        #expect(cache.count == 1)
    }

    /// A repository as the cache of another (a tier) is asked for its stored list answer; it answers from its own
    /// cache's, else from its main, and stores main's answer as its list answer. Before this was handled, the tier
    /// tried to store the answer under the question (`queryNotSupported`) and the outer read failed.
    @Test func aTierAnswersTheListingFromItsMainAndKeepsIt() async throws {
        let (_, main, _) = Self.repository()
        let disk = MemoryDataSource<User>(configuration: .init(key: { $0.id }))
        let tier = CacheRepository(main: main, cache: disk).asDataSource(operation: .cacheSync)
        let outer = CacheRepository(main: main, cache: tier)

        let first = try await outer.getAll(AllObjectsQuery(), operation: .cacheSync)
        let second = try await outer.getAll(AllObjectsQuery(), operation: .cacheSync)

        #expect(Set(first.map(\.id)) == ["1", "2", "3"])
        #expect(Set(second.map(\.id)) == ["1", "2", "3"])
        #expect(disk.count == 3)
        #expect(main.callCount(.getAll) == 1)
    }

    /// Reading the cache alone still lists what it holds.
    @Test func theCacheAloneListsWhatItHolds() async throws {
        let (repository, _, _) = Self.repository()
        _ = try await repository.get(IdQuery("2"), operation: .cacheSync)

        #expect(try await repository.getAll(AllObjectsQuery(), operation: .cache).map(\.id) == ["2"])
    }

    /// Before, an entry of the stored answer put again with a shorter time to live than the answer's expired on its
    /// own, out of the listing, and what was left was served as every entry until the answer expired.
    @Test func anEntryPutAgainWithAShorterLifeTakesTheAnswerWithItWhenItExpires() async throws {
        let clock = ManualClock()
        let main = ScriptedDataSource(["1": User(id: "1"), "2": User(id: "2"), "3": User(id: "3")])
        let cache = MemoryDataSource<User>(
            configuration: .init(timeToLive: .seconds(300), key: { $0.id }, clock: clock)
        )
        let repository = CacheRepository(main: main, cache: cache)
        _ = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)

        cache.setValue(User(id: "2"), forKey: "2", timeToLive: .seconds(10))
        clock.advance(by: .seconds(11))
        let again = try await repository.getAll(AllObjectsQuery(), operation: .cacheSync)

        #expect(Set(again.map(\.id)) == ["1", "2", "3"])
        #expect(main.callCount(.getAll) == 2, "the answer went with its entry: the list is main's again")
    }
}
