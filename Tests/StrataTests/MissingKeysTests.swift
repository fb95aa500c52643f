import Strata
import StrataTesting
import Testing

/// A value that knows its id, so a repository can tell which ids main did not answer.
private struct Member: Identifiable, Hashable, Sendable {
    let id: Int
}

struct MissingKeysTests {
    @Test func aListReadAsksMainOnlyForTheIdsTheCacheMisses() async throws {
        // Given a cache holding ids 1 and 3 of five
        let harness = Harness(
            main: ["1": "m1", "2": "m2", "3": "m3", "4": "m4", "5": "m5"],
            cache: ["1": "c1", "3": "c3"]
        )
        let repository = harness.repository()

        // When the five are read
        let values = try await repository.getAll(IdsQuery([1, 2, 3, 4, 5]), operation: .cacheSync)

        // Then main was asked once, for 2, 4 and 5, the answer keeps the order asked, and main's values are cached
        #expect(values == ["c1", "m2", "c3", "m4", "m5"])
        #expect(harness.main.calls.map(\.query) == [String(describing: IdsQuery([2, 4, 5]))])
        #expect(harness.cacheStore.contents == ["1": "c1", "2": "m2", "3": "c3", "4": "m4", "5": "m5"])
    }

    @Test func aListReadTheCacheHoldsWhollyNeverAsksMain() async throws {
        let harness = Harness(main: ["1": "m1"], cache: ["1": "c1", "2": "c2"])

        let values = try await harness.repository().getAll(IdsQuery([2, 1]), operation: .default)

        #expect(values == ["c2", "c1"])
        #expect(harness.main.calls.isEmpty)
    }

    @Test func idsMainDoesNotFindAreReportedOneByOneAndTheFoundOnesAreCached() async throws {
        // Given a cache holding id 1, and a main source that has 2 but not 3
        let main = ScriptedDataSource(["2": Member(id: 2)])
        main.script(.getAll, .values([Member(id: 2)]))
        let cache = ScriptedDataSource(["1": Member(id: 1)])
        let repository = CacheRepository(main: main, cache: cache)

        // When 1, 2 and 3 are read
        let error = await #expect(throws: StrataError.self) {
            try await repository.getAll(IdsQuery([1, 2, 3]), operation: .cacheSync)
        }

        // Then the read fails with not found, carrying what it found in the order asked; 2 is cached
        #expect(error?.code == .notFound)
        #expect(error?.partialValues(as: Member.self) == [Member(id: 1), Member(id: 2), nil])
        #expect(cache.contents["2"] == Member(id: 2))
        #expect(cache.contents["3"] == nil)
    }

    @Test func aShortAnswerOfValuesWithoutIdentityFailsWithoutCaching() async throws {
        let harness = Harness(main: ["2": "m2"], cache: ["1": "c1"])
        harness.mainStore.script(.getAll, .values(["m2"]))

        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().getAll(IdsQuery([1, 2, 3]), operation: .cacheSync)
        }

        #expect(error?.code == .notFound)
        #expect(harness.cacheStore.contents == ["1": "c1"])
    }

    @Test func aMainFailureIsThrownAsItIs() async throws {
        let harness = Harness(main: ["2": "m2"], cache: ["1": "c1"])
        harness.mainStore.fail(.getAll, with: offline)

        let error = await #expect(throws: StrataError.self) {
            try await harness.repository().getAll(IdsQuery([1, 2]), operation: .cacheSync)
        }

        #expect(error?.code == .network)
    }
}
