import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

/// Main answering *not found* for a key the cache holds a copy of: the copy goes (in the read's write-back turn),
/// so that no later read serves a value main no longer has.
struct MainNotFoundCopyTests {
    private static let key = IdQuery("42")

    /// Before, a `.mainSync` get ("skips the cache and refreshes it") that main answered *not found* left the cache's
    /// copy, which the next `.cacheSync` read served; and the cache's list answer still listed it.
    @Test func aMainSyncReadMainAnswersNotFoundDropsTheCopyAndTheListAnswer() async throws {
        let main = ScriptedDataSource(["1": "one", "42": "old"])
        let cache = MemoryDataSource<String>(configuration: .init(key: { $0 == "one" ? "1" : "42" }))
        let repository = CacheRepository(main: main, cache: cache)
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .default).count == 2)
        try await main.delete(Self.key)

        await #expect(throws: StrataError.self) { _ = try await repository.get(Self.key, operation: .mainSync) }

        #expect(cache.value(forKey: "42") == nil)
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .default) == ["one"])
        #expect(main.callCount(.getAll) == 2, "the list answer went with the copy")
    }

    /// Before, a stale-while-revalidate refresh that main answered *not found* left the stale copy, which every read
    /// in the window went on serving.
    @Test func aRefreshMainAnswersNotFoundDropsTheStaleCopy() async throws {
        let clock = ManualClock()
        let main = ScriptedDataSource(["42": "old"])
        let store = MemoryDataSource<String>(configuration: .init(clock: clock))
        let repository = CacheRepository(main: main, cache: store.validated(by: .maxAge(.seconds(300), clock: clock)))
        let operation = CacheSyncOperation.cacheSync(staleWhileRevalidate: .seconds(60), clock: clock)
        _ = try await repository.get(Self.key, operation: operation)
        try await main.delete(Self.key)
        clock.advance(by: .seconds(330))

        #expect(try await repository.get(Self.key, operation: operation) == "old", "stale, at once")
        await repository.waitForBackgroundRefreshes()

        #expect(store.value(forKey: "42") == nil)
    }

    /// Before, a stale entry main answered *not found* for was left, and served again by a fallback.
    @Test func aStaleReadMainAnswersNotFoundDropsTheStaleCopy() async throws {
        let clock = ManualClock()
        let main = ScriptedDataSource(["42": "old"])
        let store = MemoryDataSource<String>(configuration: .init(clock: clock))
        let repository = CacheRepository(main: main, cache: store.validated(by: .maxAge(.seconds(300), clock: clock)))
        _ = try await repository.get(Self.key, operation: .cacheSync)
        try await main.delete(Self.key)
        clock.advance(by: .seconds(330))

        await #expect(throws: StrataError.self) { _ = try await repository.get(Self.key, operation: .cacheSync) }

        #expect(store.value(forKey: "42") == nil)
    }

    /// A fallback that accepts *not found* serves the stale copy after main's 404, so the copy stays. Before, the first
    /// such read served it and dropped it, and every later read threw.
    @Test func aFallbackThatServesStaleOnNotFoundKeepsTheStaleCopy() async throws {
        let clock = ManualClock()
        let main = ScriptedDataSource(["42": "old"])
        let store = MemoryDataSource<String>(configuration: .init(clock: clock))
        let repository = CacheRepository(main: main, cache: store.validated(by: .maxAge(.seconds(300), clock: clock)))
        let operation = CacheSyncOperation.cacheSync(fallback: { _ in true })
        _ = try await repository.get(Self.key, operation: operation)
        try await main.delete(Self.key)
        clock.advance(by: .seconds(330))

        #expect(try await repository.get(Self.key, operation: operation) == "old")
        #expect(try await repository.get(Self.key, operation: operation) == "old")
        #expect(main.callCount(.get) == 3)
    }

    /// A miss of a key neither source holds keeps the cache's list answer: nothing it lists went.
    @Test func aKeyNeitherSourceHoldsKeepsTheListAnswer() async throws {
        let main = ScriptedDataSource(["1": "one"])
        let cache = MemoryDataSource<String>(configuration: .init(key: { _ in "1" }))
        let repository = CacheRepository(main: main, cache: cache)
        _ = try await repository.getAll(AllObjectsQuery(), operation: .default)

        await #expect(throws: StrataError.self) { _ = try await repository.get(Self.key, operation: .cacheSync) }

        _ = try await repository.getAll(AllObjectsQuery(), operation: .default)
        #expect(main.callCount(.getAll) == 1)
    }
}
