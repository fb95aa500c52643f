import Foundation
import Strata
import StrataMemory
import StrataTesting
import Testing

struct MemoryEvictionObserverTests {
    private let clock = ManualClock()
    private let recorder = EvictionRecorder()

    private func makeStore(countLimit: Int? = nil, costLimit: Int? = nil) -> MemoryDataSource<Data> {
        var configuration = MemoryDataSource<Data>.Configuration(
            countLimit: countLimit,
            costLimit: costLimit,
            timeToLive: .seconds(10),
            clock: clock
        )
        configuration.evictionObserver = recorder
        return MemoryDataSource(configuration: configuration)
    }

    @Test func reportsTheLeastRecentlyUsedEntryEvictedOverTheCountLimit() {
        let store = makeStore(countLimit: 2)
        for key in ["a", "b"] { store.setValue(Data(count: 10), forKey: key) }
        _ = store.value(forKey: "a")

        store.setValue(Data(count: 10), forKey: "c")

        #expect(recorder.summary == ["b: countLimit"])
        #expect(recorder.evictions.first?.usage == StoreUsage(count: 2, bytes: 20))
        #expect(store.sortedKeys() == ["a", "c"])
    }

    @Test func reportsEntriesEvictedOverTheCostLimitAsSizeLimit() {
        let store = makeStore(costLimit: 25)
        for key in ["a", "b"] { store.setValue(Data(count: 10), forKey: key) }

        store.setValue(Data(count: 20), forKey: "c")

        #expect(recorder.summary == ["a: sizeLimit", "b: sizeLimit"])
        #expect(recorder.evictions.last?.usage == StoreUsage(count: 1, bytes: 20))
    }

    @Test func reportsExpiredEntriesOnReadAndOnRemoveExpired() {
        let store = makeStore()
        for key in ["a", "b"] { store.setValue(Data(count: 1), forKey: key) }
        clock.advance(by: .seconds(11))

        #expect(store.value(forKey: "a") == nil)
        #expect(store.removeExpired() == 1)

        #expect(recorder.summary == ["a: expired", "b: expired"])
    }

    @Test func reportsTrimAndRemoveAllAsPurges() {
        let store = makeStore(countLimit: 4, costLimit: 4)
        for key in ["a", "b", "c"] { store.setValue(Data(count: 1), forKey: key) }

        store.trim(keeping: 0.5)
        store.removeAll()

        #expect(recorder.summary == ["a: purged", "*: purged"])
        #expect(recorder.evictions.first?.usage == StoreUsage(count: 2, bytes: 2))
        #expect(recorder.evictions.last?.count == 2)
        #expect(recorder.evictions.last?.usage == StoreUsage(count: 0, bytes: 0))
    }

    @Test func deletesByKeyAreNotEvictions() async throws {
        let store = makeStore(countLimit: 2)
        store.setValue(Data(count: 1), forKey: "a")

        try await store.delete(KeyQuery("a"))

        #expect(recorder.evictions.isEmpty)
    }
}

struct MemoryEvictionUsageBytesTests {
    private let recorder = EvictionRecorder()

    private func store(cost: (@Sendable (Int) -> Int)?) -> MemoryDataSource<Int> {
        var configuration = MemoryDataSource<Int>.Configuration(countLimit: 1, cost: cost)
        configuration.evictionObserver = recorder
        return MemoryDataSource(configuration: configuration)
    }

    @Test func aStoreOfValuesItCannotMeasureReportsNoBytes() {
        let store = store(cost: nil)
        store.setValue(1, forKey: "a")
        store.setValue(2, forKey: "b")

        #expect(recorder.summary == ["a: countLimit"])
        #expect(recorder.evictions.first?.usage == StoreUsage(count: 1, bytes: nil))
    }

    @Test func aCostGivenForAnyValueIsReportedAsItsBytes() {
        let store = store(cost: { $0 * 10 })
        store.setValue(1, forKey: "a")
        store.setValue(2, forKey: "b")

        #expect(recorder.evictions.first?.usage == StoreUsage(count: 1, bytes: 20))
    }

    @Test func aCostSetAfterTheConfigurationIsMadeCountsToo() {
        var configuration = MemoryDataSource<Int>.Configuration(countLimit: 1)
        configuration.cost = { $0 }
        configuration.evictionObserver = recorder
        let store = MemoryDataSource(configuration: configuration)
        store.setValue(1, forKey: "a")
        store.setValue(7, forKey: "b")

        #expect(recorder.evictions.first?.usage == StoreUsage(count: 1, bytes: 7))
    }
}
