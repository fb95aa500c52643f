import Foundation
import Strata
import StrataMemory
import StrataTesting
import Testing

struct MemoryDataSourceTests {
    @Test func readsMarkEntriesRecentlyUsedAndTheLeastRecentlyUsedIsEvicted() {
        // Given a full source of three entries
        let memory = MemoryDataSource<Int>(countLimit: 3)
        memory.setValue(1, forKey: "a")
        memory.setValue(2, forKey: "b")
        memory.setValue(3, forKey: "c")
        // When "a" is read and a fourth entry arrives
        #expect(memory.value(forKey: "a") == 1)
        memory.setValue(4, forKey: "d")
        // Then "b", the least recently used, is the one that went
        #expect(memory.value(forKey: "b") == nil)
        #expect(memory.keysByRecency == ["d", "a", "c"])
        #expect(memory.count == 3)
    }

    @Test func keepsTheNewestEntriesUnderACountLimitUnlikeNSCacheOnLinux() {
        let memory = MemoryDataSource<Int>(countLimit: 100)
        for index in 0..<1_000 { memory.setValue(index, forKey: "\(index)") }
        #expect(memory.count == 100)
        #expect(memory.value(forKey: "999") == 999)
        #expect(memory.value(forKey: "900") == 900)
        #expect(memory.value(forKey: "899") == nil)
    }

    @Test func aCostLimitEvictsByBytes() {
        let memory = MemoryDataSource<Data>(configuration: .init(costLimit: 10))
        memory.setValue(Data(count: 4), forKey: "a")
        memory.setValue(Data(count: 4), forKey: "b")
        memory.setValue(Data(count: 4), forKey: "c")
        #expect(memory.totalCost == 8)
        #expect(memory.value(forKey: "a") == nil)
        memory.setValue(Data(count: 2), forKey: "b")
        #expect(memory.totalCost == 6)
    }

    /// A value that costs more than the whole limit is not kept, and evicts nothing for itself (it emptied the
    /// store: every other entry went before it did); a put of one under a key still replaces the key's value.
    @Test func aValueLargerThanTheCostLimitIsNotKeptAndEvictsNothingElse() {
        let memory = MemoryDataSource<Data>(configuration: .init(costLimit: 10))
        memory.setValue(Data(count: 4), forKey: "small")
        memory.setValue(Data(count: 3), forKey: "replaced")

        memory.setValue(Data(count: 11), forKey: "huge")
        memory.setValue(Data(count: 11), forKey: "replaced")

        #expect(memory.value(forKey: "huge") == nil)
        #expect(memory.value(forKey: "replaced") == nil)
        #expect(memory.value(forKey: "small") == Data(count: 4))
        #expect(memory.totalCost == 4)
    }

    @Test func entriesExpireAfterTheirTimeToLiveExactlyAtTheBoundary() async throws {
        let clock = ManualClock()
        let memory = MemoryDataSource<String>(configuration: .init(timeToLive: .seconds(10), clock: clock))
        memory.setValue("default", forKey: "a")
        memory.setValue("short", forKey: "b", timeToLive: .seconds(2))
        clock.advance(by: .seconds(2))
        #expect(memory.value(forKey: "b") == nil)
        clock.advance(by: .milliseconds(7_999))
        #expect(memory.value(forKey: "a") == "default")
        clock.advance(by: .milliseconds(1))
        let error = await #expect(throws: StrataError.self) { try await memory.get(KeyQuery("a")) }
        #expect(error?.code == .notFound)
        #expect(memory.count == 0)
    }

    @Test func removeExpiredAndPurgeFreeMemoryOnDemand() {
        let clock = ManualClock()
        let memory = MemoryDataSource<Int>(configuration: .init(countLimit: 10, clock: clock))
        memory.setValue(1, forKey: "short", timeToLive: .seconds(1))
        for index in 0..<9 { memory.setValue(index, forKey: "k\(index)") }
        clock.advance(by: .seconds(1))
        memory.removeExpired()
        #expect(memory.count == 9)
        memory.trim(keeping: 0.5)
        #expect(memory.count == 5)
        #expect(memory.value(forKey: "k8") == 8)
        memory.trim()
        #expect(memory.count == 0)
    }

    @Test func answersEveryCoreQuery() async throws {
        let memory = MemoryDataSource<String>()
        _ = try await memory.putAll(["c", "a", "b"], in: IdsQuery(["3", "1", "2"]))
        #expect(try await memory.get(IdQuery("1")) == "a")
        #expect(try await memory.getAll(IdsQuery(["2", "3"])) == ["b", "c"])
        #expect(try await memory.getAll(AllObjectsQuery()) == ["a", "b", "c"])
        #expect(try await memory.getAll(PaginationOffsetLimitQuery(offset: 1, limit: 5)) == ["b", "c"])
        #expect(try await memory.getAll(PaginationOffsetLimitQuery(offset: 9, limit: 5)) == [])
        try await memory.delete(IdsQuery(["1", "2"]))
        #expect(try await memory.getAll(AllObjectsQuery()) == ["c"])
        try await memory.delete(AllObjectsQuery())
        #expect(memory.count == 0)
    }

    @Test func aMissingKeyInAnIdsQueryIsNotFound() async throws {
        let memory = MemoryDataSource<String>()
        _ = try await memory.put("a", in: KeyQuery("1"))
        let error = await #expect(throws: StrataError.self) { try await memory.getAll(IdsQuery(["1", "2"])) }
        #expect(error?.code == .notFound)
    }

    @Test func unsupportedQueriesAreThrownErrors() async throws {
        struct Search: Query {}
        let memory = MemoryDataSource<String>()
        for call in [
            { _ = try await memory.get(Search()) },
            { _ = try await memory.put("x", in: Search()) },
            { _ = try await memory.putAll(["x"], in: AllObjectsQuery()) },
            { try await memory.delete(Search()) },
        ] as [@Sendable () async throws -> Void] {
            let error = await #expect(throws: StrataError.self) { try await call() }
            #expect(error?.code == .queryNotSupported)
        }
    }

    @Test func putAllOfAllObjectsUsesTheConfiguredKey() async throws {
        let memory = MemoryDataSource<String>(configuration: .init(key: { $0 }))
        _ = try await memory.putAll(["x", "y"], in: AllObjectsQuery())
        #expect(try await memory.getAll(AllObjectsQuery()) == ["x", "y"])
    }

    @Test func reportsStoredDatesForValidation() async throws {
        let clock = ManualClock()
        let memory = MemoryDataSource<String>(configuration: .init(clock: clock))
        let cache = memory.validated(by: .maxAge(.seconds(30), clock: clock))
        _ = try await cache.put("v", in: KeyQuery("k"))
        clock.advance(by: .seconds(29))
        #expect(try await cache.get(KeyQuery("k")) == "v")
        clock.advance(by: .seconds(1))
        let error = await #expect(throws: StrataError.self) { try await cache.get(KeyQuery("k")) }
        #expect(error?.code == .notValid)
    }

    @Test func keepsFreshUntilAndARenewalReplacesIt() async throws {
        // Given a memory store with a time to live, and an entry from a source that gives only freshness
        let clock = ManualClock()
        let memory = MemoryDataSource<String>(configuration: .init(timeToLive: .seconds(3_600), clock: clock))
        let storedAt = clock.now()
        let freshUntil = storedAt.addingTimeInterval(60)
        _ = try await memory.putEntry(
            StoredEntry(value: "v", metadata: EntryMetadata(freshUntil: freshUntil)),
            in: KeyQuery("k")
        )

        // Then, past its freshness, it is still served, stamped by the store's clock, expiring by its time to live
        clock.advance(by: .seconds(120))
        let entry = try await memory.getEntry(KeyQuery("k"))
        #expect(entry.value == "v")
        #expect(
            entry.metadata
                == EntryMetadata(
                    storedAt: storedAt,
                    expiresAt: storedAt.addingTimeInterval(3_600),
                    freshUntil: freshUntil
                )
        )
        let fresh = memory.validated(by: .fresh(clock: clock))
        let error = await #expect(throws: StrataError.self) { try await fresh.get(KeyQuery("k")) }
        #expect(error?.code == .notValid)

        // When it is renewed, then the freshness date is replaced; without one, it is cleared
        let renewedUntil = clock.now().addingTimeInterval(60)
        #expect(
            try await memory.renewMetadata(EntryMetadata(freshUntil: renewedUntil, eTag: "\"v2\""), in: KeyQuery("k"))
        )
        #expect(memory.entry(forKey: "k")?.metadata.freshUntil == renewedUntil)
        #expect(memory.entry(forKey: "k")?.metadata.eTag == "\"v2\"")
        #expect(try await fresh.get(KeyQuery("k")) == "v")
        #expect(try await memory.renewMetadata(EntryMetadata(), in: KeyQuery("k")))
        #expect(memory.entry(forKey: "k")?.metadata.freshUntil == nil)
    }

    @Test func worksAsTheCacheOfACacheRepository() async throws {
        let main = ScriptedDataSource(["42": "Ada"])
        let users = CacheRepository(main: main, cache: MemoryDataSource<String>(countLimit: 10))
        #expect(try await users.get(IdQuery(42), operation: .cacheSync) == "Ada")
        #expect(try await users.get(IdQuery(42), operation: .cacheSync) == "Ada")
        #expect(main.callCount(.get) == 1)
    }

    @Test func staysConsistentUnderConcurrentUseFromManyTasks() async throws {
        // Given 1,000 tasks doing 1,000 mixed operations each on 200 keys with a limit of 100
        let memory = MemoryDataSource<Int>(countLimit: 100)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<1_000 {
                group.addTask {
                    var generator = SeededRandomNumberGenerator(seed: UInt64(task))
                    for _ in 0..<1_000 {
                        let key = "k\(generator.next() % 200)"
                        switch generator.next() % 4 {
                        case 0: memory.removeValue(forKey: key)
                        case 1: _ = memory.value(forKey: key)
                        default: memory.setValue(task, forKey: key)
                        }
                    }
                }
            }
        }
        // Then the limit holds and every key the index lists is readable once
        #expect(memory.count <= 100)
        let keys = memory.keysByRecency
        #expect(Set(keys).count == keys.count)
        #expect(keys.count == memory.count)
        for key in keys { #expect(memory.value(forKey: key) != nil) }
    }
}
