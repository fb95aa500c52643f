import Foundation
import Strata
import StrataTesting
import Testing

/// An entry whose source forbids serving it stale (`EntryMetadata.forbidsServingStale`, as HTTP's
/// `must-revalidate` and `no-cache` say) is never served stale by a repository, whatever its operation allows: not
/// when main fails, not inside a stale-while-revalidate window, not for `cacheIgnoringValidation`, not for a list.
struct NeverServedStaleTests {
    /// A cache holding "old" under keys 1 and 2, fresh for 60 seconds by the clock, in front of main's "new";
    /// entry 1 forbids serving it stale when `strict`, entry 2 never does.
    struct Fixture {
        let clock = ManualClock()
        let main = PluginTestStore(["1": "new", "2": "new"])
        let cache: EntryStore

        init(strict: Bool) {
            let now = clock.now()
            let metadata = { (forbids: Bool) in
                EntryMetadata(storedAt: now, freshUntil: now.addingTimeInterval(60), forbidsServingStale: forbids)
            }
            cache = EntryStore([
                "1": StoredEntry(value: "old", metadata: metadata(strict)),
                "2": StoredEntry(value: "old", metadata: metadata(false)),
            ])
        }

        var repository:
            CacheRepository<PluginTestStore<String>, ValidatedDataSource<EntryStore, FreshnessValidator<String>>>
        {
            CacheRepository(main: main, cache: cache.validated(by: .fresh(clock: clock)))
        }
    }

    @Test(arguments: [false, true])
    func mainsFailureIsThrownRatherThanAStaleValueThatForbidsIt(strict: Bool) async throws {
        // Given an entry past its freshness, and main down
        let fixture = Fixture(strict: strict)
        fixture.clock.advance(by: .seconds(90))
        fixture.main.failNext(StrataError(.network, "down"))

        // When it is read with a fallback that accepts any error
        let read = await result {
            try await fixture.repository.getResponse(IdQuery(1), operation: .cacheSync { _ in true })
        }

        // Then the stale value is served only when its source allows it; otherwise main's error shows
        switch read {
        case .success(let response):
            #expect(!strict)
            #expect(response.value == "old" && response.isStale)
        case .failure(let error):
            #expect(strict)
            #expect((error as? StrataError)?.code == .network, "\(error)")
        }
        #expect(fixture.main.calls(.get) == 1)
    }

    @Test(arguments: [false, true])
    func aStaleWhileRevalidateWindowServesOnlyWhatMayBeServedStale(strict: Bool) async throws {
        let fixture = Fixture(strict: strict)
        let repository = fixture.repository
        fixture.clock.advance(by: .seconds(90))
        let operation = CacheSyncOperation.cacheSync(staleWhileRevalidate: .seconds(60), clock: fixture.clock)

        let response = try await repository.getResponse(IdQuery(1), operation: operation)
        await repository.waitForBackgroundRefreshes()

        // A strict entry is revalidated before the answer: main's value, not stale
        #expect(response.isStale == !strict)
        #expect(response.value == (strict ? "new" : "old"))
        #expect(fixture.main.calls(.get) == 1)
    }

    @Test(arguments: [false, true])
    func ignoringValidationDoesNotServeAnEntryThatForbidsIt(strict: Bool) async throws {
        let fixture = Fixture(strict: strict)
        fixture.clock.advance(by: .seconds(90))

        let read = await result { try await fixture.repository.get(IdQuery(1), operation: .cacheIgnoringValidation) }

        switch read {
        case .success(let value): #expect(!strict && value == "old")
        case .failure(let error): #expect(strict && (error as? StrataError)?.code == .notValid, "\(error)")
        }
        #expect(fixture.main.calls(.get) == 0)
    }

    @Test(arguments: [false, true])
    func aListFallsBackOnStaleValuesOnlyWhenEveryOneMayBeServedStale(strict: Bool) async throws {
        let fixture = Fixture(strict: strict)
        fixture.clock.advance(by: .seconds(90))
        fixture.main.failNext(StrataError(.network, "down"))

        let read = await result {
            try await fixture.repository.getAll(IdsQuery(["1", "2"]), operation: .cacheSync { _ in true })
        }

        switch read {
        case .success(let values): #expect(!strict && values == ["old", "old"])
        case .failure(let error): #expect(strict && (error as? StrataError)?.code == .network, "\(error)")
        }
    }
}

/// The result of `body`, thrown errors caught.
private func result<Success>(_ body: () async throws -> Success) async -> Result<Success, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}
