import Foundation
import Strata
import StrataTesting
import Testing

/// How a caller learns that an answer was a stale cached value (`getResponse`), and windows that entries name
/// for themselves (`BackgroundRefresh.entryWindow`).
struct StaleResponseTests {
    /// A cache holding "old" for key 1, valid for 60 seconds from the clock's start, before main's "new".
    struct Fixture {
        let clock = ManualClock()
        let main = PluginTestStore(["1": "new"])
        let cache: EntryStore

        init() {
            cache = EntryStore(["1": StoredEntry(value: "old", storedAt: clock.now())])
        }

        var repository:
            CacheRepository<PluginTestStore<String>, ValidatedDataSource<EntryStore, StoredTimeValidator<String>>>
        {
            CacheRepository(main: main, cache: cache.validated(by: .maxAge(.seconds(60), clock: clock)))
        }
    }

    @Test func aFreshValueIsNotStaleAndComesFromTheCache() async throws {
        let fixture = Fixture()

        let response = try await fixture.repository.getResponse(IdQuery(1), operation: .cacheSync)

        #expect(response.value == "old")
        #expect(!response.isStale)
        #expect(response.origin == .cache)
        #expect(response.storedAt == fixture.clock.now())
    }

    @Test func aValueServedInsideAStaleWhileRevalidateWindowIsMarkedStale() async throws {
        let fixture = Fixture()
        let repository = fixture.repository
        fixture.clock.advance(by: .seconds(90))
        let operation = CacheSyncOperation.cacheSync(staleWhileRevalidate: .seconds(60), clock: fixture.clock)

        let stale = try await repository.getResponse(IdQuery(1), operation: operation)
        await repository.waitForBackgroundRefreshes()
        let refreshed = try await repository.getResponse(IdQuery(1), operation: operation)

        #expect(stale.value == "old" && stale.isStale && stale.origin == .cache)
        #expect(refreshed.value == "new" && !refreshed.isStale)
    }

    @Test func aValueServedAfterMainFailedIsMarkedStale() async throws {
        let fixture = Fixture()
        fixture.main.failNext(StrataError(.network, "down"))
        fixture.clock.advance(by: .seconds(90))

        let response = try await fixture.repository.getResponse(IdQuery(1), operation: .cacheSync { _ in true })

        #expect(response.value == "old" && response.isStale)
    }

    @Test func mainsAnswerIsNotStaleAndComesFromMain() async throws {
        let fixture = Fixture()
        fixture.clock.advance(by: .seconds(90))

        let response = try await fixture.repository.getResponse(IdQuery(1), operation: .cacheSync)

        #expect(response.value == "new" && !response.isStale && response.origin == .main)
    }

    /// The entry names a 60-second window for itself; the operation's own is zero.
    @Test(arguments: [(90, true), (120, false)])
    func anEntryNamesItsOwnWindow(secondsAfterStoring: Int, servedStale: Bool) async throws {
        let fixture = Fixture()
        let repository = fixture.repository
        fixture.clock.advance(by: .seconds(secondsAfterStoring))
        let refresh = OperationPlan.BackgroundRefresh(window: .zero, clock: fixture.clock) { miss in
            miss.staleEntry(as: String.self)?.value == "old" ? .seconds(60) : nil
        }

        let operation = CacheSyncOperation(staleWhileRevalidate: refresh)

        let response = try await repository.getResponse(IdQuery(1), operation: operation)
        await repository.waitForBackgroundRefreshes()

        #expect(response.isStale == servedStale)
        #expect(response.value == (servedStale ? "old" : "new"))
        #expect(fixture.main.calls(.get) == 1)
    }

    @Test func withoutAnEntryWindowTheOperationsWindowApplies() async throws {
        let fixture = Fixture()
        let repository = fixture.repository
        fixture.clock.advance(by: .seconds(90))
        let refresh = OperationPlan.BackgroundRefresh(window: .seconds(60), clock: fixture.clock) { _ in nil }
        let operation = CacheSyncOperation(staleWhileRevalidate: refresh)

        let response = try await repository.getResponse(IdQuery(1), operation: operation)
        await repository.waitForBackgroundRefreshes()

        #expect(response.isStale)
    }
}
