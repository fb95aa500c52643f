import Strata
import StrataTesting
import Testing

struct CacheRepositoryGetTests {
    @Test func defaultOperationReadsTheCacheFirstAndStopsOnAHit() async throws {
        let harness = Harness(main: ["1": "main"], cache: ["1": "cached"])
        let value = try await harness.repository().get(IdQuery(1), operation: .default)
        #expect(value == "cached")
        #expect(harness.journal.trace == ["cache.get"])
    }

    @Test func defaultOperationFallsThroughToMainOnAMissAndFillsTheCache() async throws {
        let harness = Harness(main: ["1": "main"])
        let value = try await harness.repository().get(IdQuery(1), operation: DefaultOperation())
        #expect(value == "main")
        #expect(harness.journal.trace == ["cache.get", "main.get", "cache.put"])
        #expect(harness.cacheStore.contents["1"] == "main")
    }

    @Test func mainOperationTouchesOnlyMain() async throws {
        let harness = Harness(main: ["1": "main"], cache: ["1": "cached"])
        let value = try await harness.repository().get(IdQuery(1), operation: .main)
        #expect(value == "main")
        #expect(harness.journal.trace == ["main.get"])
    }

    @Test func mainSyncReadsMainThenPutsTheValueIntoTheCache() async throws {
        let harness = Harness(main: ["1": "fresh"], cache: ["1": "old"])
        let value = try await harness.repository().get(IdQuery(1), operation: .mainSync)
        #expect(value == "fresh")
        #expect(harness.journal.trace == ["main.get", "cache.put"])
        #expect(harness.cacheStore.contents["1"] == "fresh")
    }

    @Test func mainSyncDoesNotTouchTheCacheWhenMainFails() async throws {
        let harness = Harness(cache: ["1": "old"])
        harness.mainStore.script(.get, .failure(offline))
        await #expect(throws: StrataError.self) { try await harness.repository().get(IdQuery(1), operation: .mainSync) }
        #expect(harness.journal.trace == ["main.get"])
        #expect(harness.cacheStore.contents["1"] == "old")
    }

    @Test func cacheOperationTouchesOnlyTheCache() async throws {
        let harness = Harness(main: ["1": "main"])
        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().get(IdQuery(1), operation: .cache)
        }
        #expect(error?.code == .notFound)
        #expect(harness.journal.trace == ["cache.get"])
    }

    @Test func cacheOperationAppliesValidationUnlessAskedToIgnoreIt() async throws {
        let harness = Harness(cache: ["1": "stale"])
        let repository = CacheRepository(
            main: harness.main,
            cache: harness.cache.validated(by: ClosureValidator { _, _ in false })
        )
        let error = await #expect(throws: StrataError.self) { try await repository.get(IdQuery(1), operation: .cache) }
        #expect(error?.code == .notValid)
        let stale = try await repository.get(IdQuery(1), operation: .cacheIgnoringValidation)
        #expect(stale == "stale")
        #expect(harness.journal.trace == ["cache.get", "cache.get"])
    }

    @Test func cacheSyncReturnsAValidCachedValueWithoutAskingMain() async throws {
        let harness = Harness(main: ["1": "main"], cache: ["1": "cached"])
        #expect(try await harness.repository().get(IdQuery(1), operation: .cacheSync) == "cached")
        #expect(harness.journal.trace == ["cache.get"])
    }

    @Test func cacheSyncGoesToMainWhenTheCachedValueIsNotValid() async throws {
        let harness = Harness(main: ["1": "fresh"], cache: ["1": "stale"])
        let repository = CacheRepository(
            main: harness.main,
            cache: harness.cache.validated(by: ClosureValidator { value, _ in value != "stale" })
        )
        #expect(try await repository.get(IdQuery(1), operation: .cacheSync) == "fresh")
        #expect(harness.journal.trace == ["cache.get", "main.get", "cache.put"])
    }

    @Test(arguments: [StrataError.Code.io, .dataSerialization, .unauthorized, .corrupt])
    func cacheSyncReturnsOtherCacheErrorsAsTheyAre(code: StrataError.Code) async throws {
        let harness = Harness(main: ["1": "main"])
        harness.cacheStore.script(.get, .failure(StrataError(code, "cache broke")))
        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().get(IdQuery(1), operation: .cacheSync)
        }
        #expect(error?.code == code)
        #expect(harness.journal.trace == ["cache.get"])
    }

    @Test func cacheSyncFallbackServesTheStaleValueWhenTheRuleAcceptsMainsError() async throws {
        let harness = Harness(cache: ["1": "stale"])
        harness.mainStore.script(.get, .failure(offline))
        let repository = CacheRepository(
            main: harness.main,
            cache: harness.cache.validated(by: ClosureValidator { _, _ in false })
        )
        let value = try await repository.get(
            IdQuery(1),
            operation: .cacheSync(fallback: { $0.strataCode == .network })
        )
        #expect(value == "stale")
        #expect(harness.journal.trace == ["cache.get", "main.get"])
    }

    @Test func cacheSyncFallbackRefusedThrowsMainsError() async throws {
        let harness = Harness(cache: ["1": "stale"])
        harness.mainStore.script(.get, .failure(StrataError(.unauthorized, "who are you")))
        let repository = CacheRepository(
            main: harness.main,
            cache: harness.cache.validated(by: ClosureValidator { _, _ in false })
        )
        let error = await #expect(throws: StrataError.self) {
            try await repository.get(IdQuery(1), operation: .cacheSync(fallback: { $0.strataCode == .network }))
        }
        #expect(error?.code == .unauthorized)
    }

    @Test func cacheSyncFallbackHasNothingToServeAfterANotFound() async throws {
        let harness = Harness()
        harness.mainStore.script(.get, .failure(offline))
        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().get(IdQuery(1), operation: .cacheSync(fallback: { _ in true }))
        }
        #expect(error?.code == .network)
    }

    /// Before, a fallback rule that took every error took `cacheSyncFailed` too: main's fresh answer was dropped
    /// for the stale value, because the disk refused the write after it.
    @Test func aFallbackNeverReplacesMainsAnswerWhoseCacheWriteFailed() async throws {
        let harness = Harness(main: ["1": "main"], cache: ["1": "stale"])
        harness.cacheStore.script(.put, .failure(StrataError(.io, "disk full")))
        let repository = CacheRepository(
            main: harness.main,
            cache: harness.cache.validated(by: ClosureValidator { value, _ in value != "stale" })
        )
        let error = await #expect(throws: StrataError.self) {
            try await repository.get(IdQuery(1), operation: .cacheSync(fallback: { _ in true }))
        }
        #expect(error?.code == .cacheSyncFailed)
        #expect(error?.value(as: String.self) == "main")
    }

    @Test func aFailedCacheWriteAfterMainSucceededIsReportedWithMainsValue() async throws {
        let harness = Harness(main: ["1": "main"])
        harness.cacheStore.script(.put, .failure(StrataError(.io, "disk full")))
        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().get(IdQuery(1), operation: .cacheSync)
        }
        #expect(error?.code == .cacheSyncFailed)
        #expect(error?.value(as: String.self) == "main")
        #expect((error?.underlying as? StrataError)?.code == .io)
    }

    @Test func bestEffortCacheWritesIgnoreAFailedCacheWrite() async throws {
        let harness = Harness(main: ["1": "main"])
        harness.cacheStore.script(.put, .failure(StrataError(.io, "disk full")))
        let repository = harness.repository(.init(cacheWrites: .bestEffort))
        #expect(try await repository.get(IdQuery(1), operation: .mainSync) == "main")
    }

    @Test func getAllFollowsTheSameTable() async throws {
        let harness = Harness(main: ["1": "a", "2": "b"])
        let values = try await harness.repository().getAll(IdsQuery([1, 2]), operation: .cacheSync)
        #expect(values == ["a", "b"])
        // The list misses, so the cache is asked for each id, and main for the ids it misses only
        let perId = ["cache.getAll", "cache.getAll"]
        #expect(harness.journal.trace == ["cache.getAll"] + perId + ["main.getAll", "cache.putAll"])
        #expect(harness.main.calls.map(\.query) == [String(describing: IdsQuery([1, 2]))])
        #expect(try await harness.repository().getAll(IdsQuery([1, 2]), operation: .cache) == ["a", "b"])
    }

    /// Before, the list read of the keys the cache missed stored every entry main gave, one that must not be stored
    /// (`no-store`) too; `get` and a whole-list read never did.
    @Test func aListReadOfMissingKeysNeverStoresAnEntryThatMustNotBeStored() async throws {
        let main = EntryStore([
            "1": StoredEntry(value: "kept", metadata: EntryMetadata()),
            "2": StoredEntry(value: "secret", metadata: EntryMetadata(expiresAt: .distantPast)),
        ])
        let cache = EntryStore()
        let repository = CacheRepository(main: main, cache: cache)

        #expect(try await repository.getAll(IdsQuery([1, 2]), operation: .cacheSync) == ["kept", "secret"])

        #expect(cache.entry("1")?.value == "kept")
        #expect(cache.entry("2") == nil)
    }

    @Test func anUnknownOperationIsAThrownError() async throws {
        let harness = Harness(main: ["1": "main"], cache: ["1": "cached"])
        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().get(IdQuery(1), operation: UnknownOperation())
        }
        #expect(error?.code == .operationNotSupported)
        #expect(harness.journal.trace.isEmpty)
    }
}
