import Strata
import StrataMemory
import StrataTesting
import Testing

/// The testing recipe of the stale-while-revalidate article, run as the article writes it.
struct StaleWhileRevalidateRecipeTests {
    /// The recipe `StaleWhileRevalidate.md` gives for tests, as written there: one clock for the store, the
    /// validator and the operation; a read from main; the clock moved into the stale window. (Before, the article's
    /// store kept the system's clock, so the validator took the entry for one stored in the future and never served
    /// it, and nothing had been stored anyway.)
    @Test func theArticlesTestingRecipeServesStaleAtOnceAndRefreshes() async throws {
        let clock = ManualClock()
        let main = ScriptedDataSource(["42": "first"])
        let users = CacheRepository(
            main: main,
            cache: MemoryDataSource<String>(configuration: .init(countLimit: 500, clock: clock))
                .validated(by: .maxAge(.seconds(300), clock: clock))
        )
        let operation = CacheSyncOperation.cacheSync(staleWhileRevalidate: .seconds(60), clock: clock)
        _ = try await users.get(IdQuery("42"), operation: operation)
        _ = try await main.put("second", in: IdQuery("42"))
        clock.advance(by: .seconds(330))

        let user = try await users.get(IdQuery("42"), operation: operation)
        await users.waitForBackgroundRefreshes()

        #expect(user == "first", "stale, at once")
        #expect(try await users.get(IdQuery("42"), operation: .cache) == "second", "the refresh wrote main's value")
        #expect(main.callCount(.get) == 2)
    }
}
