import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// A value that knows its id, so a repository can tell which ids main did not answer.
private struct Member: Identifiable, Hashable, Sendable {
    let id: Int
}

struct MissingKeysTests {
    /// Before, a `.mainSync` list read (and a stale list's background refresh) stored main's answer by position: a
    /// server that answers sorted had each value cached under another's id, and a shorter answer failed the read with
    /// `cacheSyncFailed`.
    @Test func aMainSyncListReadStoresEachValueUnderItsOwnKey() async throws {
        // Given a main that answers ids 1 and 2 sorted by name (2 first), and leaves 3 out
        let main = ScriptedDataSource(["1": Member(id: 1), "2": Member(id: 2)])
        main.script(.getAll, .values([Member(id: 2), Member(id: 1)]), .values([Member(id: 2), Member(id: 1)]))
        let cache = ScriptedDataSource(["3": Member(id: 3)])
        let repository = CacheRepository(main: main, cache: cache)

        // When ids 1 and 2 are read from main, then 1, 2 and 3
        _ = try await repository.getAll(IdsQuery([1, 2]), operation: .mainSync)
        #expect(cache.contents == ["1": Member(id: 1), "2": Member(id: 2), "3": Member(id: 3)])
        let values = try await repository.getAll(IdsQuery([1, 2, 3]), operation: .mainSync)

        // Then each value is cached under its own id, main's answer is returned as it came, and 3, gone from main, is
        // no longer cached
        #expect(values == [Member(id: 2), Member(id: 1)])
        #expect(cache.contents == ["1": Member(id: 1), "2": Member(id: 2)])
    }

    /// Before, an answer of as many values as ids, whose ids were not the ids asked in another order (one value sent
    /// twice in place of another), was stored by position: member 1 was cached under id 2, and every later read of 2
    /// got it.
    @Test func aValueSentTwiceInPlaceOfAnotherIsNeverStoredUnderTheOthersKey() async throws {
        let main = ScriptedDataSource(["1": Member(id: 1), "2": Member(id: 2)])
        main.script(.getAll, .values([Member(id: 1), Member(id: 1)]))
        let cache = ScriptedDataSource<Member>()
        let repository = CacheRepository(main: main, cache: cache)

        _ = try await repository.getAll(IdsQuery([1, 2]), operation: .mainSync)

        #expect(cache.contents == ["1": Member(id: 1)])
    }

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

    /// Two list reads that narrow to the same missing id were matched by the write stamps of their whole lists: a
    /// read of 1 and 3 that began after a write of 1 joined the main read of a read of 1 and 2 that began before it
    /// (2 written once, 3 never: the sums were equal), and got main's value from before the write. Each is matched
    /// by the stamps of the ids it asks main for.
    @Test func aNarrowedListReadNeverJoinsAMainReadThatBeganBeforeAWriteOfItsIds() async throws {
        // Given ids 1, 2 and 3 on stripes of their own, 2 and 3 in the cache, 2 written once through the repository
        let stripes = CacheRepository<PluginTestStore<String>, PluginTestStore<String>>.writeStampStripes
        let ids = try #require(Self.ids(onStripesOfTheirOwn: 3, among: stripes))
        let (one, two, three) = (ids[0], ids[1], ids[2])
        let gate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["\(one)": "old"], gate: gate)
        let cache = PluginTestStore(["\(two)": "c2", "\(three)": "c3"])
        let repository = CacheRepository(main: main, cache: cache)
        _ = try await repository.put("m2", in: IdQuery(two), operation: .main)

        // When a read of 1 and 2 is held at main, 1 is written, and a read of 1 and 3 follows
        let first = Task { try await repository.getAll(IdsQuery([one, two]), operation: .cacheSync) }
        await gate.waitForEntered(1)
        _ = try await repository.put("new", in: IdQuery(one), operation: .main)
        let second = Task { try await repository.getAll(IdsQuery([one, three]), operation: .cacheSync) }
        await poll { repository.mainReads.waiterCount >= 2 }
        gate.open()

        // Then the second read asked main itself, after the write
        #expect(try await second.value == ["new", "c3"])
        #expect(try await first.value.count == 2)
        #expect(main.calls(.getAll) == 2)
    }

    /// The first `count` ids from 1 whose keys fall in different stripes.
    private static func ids(onStripesOfTheirOwn count: Int, among stripes: Int) -> [Int]? {
        var ids: [Int] = []
        var taken = Set<Int>()
        for id in 1...1_000 where ids.count < count && taken.insert(String(id).stripe(among: stripes)).inserted {
            ids.append(id)
        }
        return ids.count == count ? ids : nil
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
