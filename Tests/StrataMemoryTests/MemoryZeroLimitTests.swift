import Foundation
import Strata
import StrataMemory
import StrataTesting
import Testing

/// A limit of 0 or less is a limit, not "none" (`NSCache`'s 0): nothing is kept. (`nil` is no limit.)
struct MemoryZeroLimitTests {
    @Test("a count limit of 0 or less keeps nothing, and reports each put evicted", arguments: [0, -1, Int.min])
    func aCountLimitOfZeroOrLessKeepsNothing(_ limit: Int) async throws {
        let (store, recorder) = Self.store(countLimit: limit)

        try await Self.putTwo(in: store)

        #expect(try await Self.keepsNothing(store))
        #expect(recorder.summary == ["a: countLimit", "b: countLimit"])
    }

    @Test("a cost limit of 0 or less keeps no value that costs anything", arguments: [0, -1, Int.min])
    func aCostLimitOfZeroOrLessKeepsNothing(_ limit: Int) async throws {
        let (store, recorder) = Self.store(costLimit: limit)

        try await Self.putTwo(in: store)

        #expect(try await Self.keepsNothing(store))
        // Each value costs more than the whole limit: not stored, so nothing was evicted for it.
        #expect(recorder.summary.isEmpty)
    }

    /// A value that costs nothing is kept under a cost limit of 0 or less, as the limit's documentation says (a
    /// negative limit refused it, and evicted it had it been stored).
    @Test("a cost limit of 0 or less keeps the values that cost nothing", arguments: [0, -1, Int.min])
    func aCostLimitOfZeroOrLessKeepsWhatCostsNothing(_ limit: Int) async throws {
        let store = MemoryDataSource<Int>(configuration: .init(costLimit: limit))

        store.setValue(1, forKey: "a")
        _ = try await store.put(2, in: KeyQuery("b"))
        store.trim(keeping: 1)

        #expect(store.value(forKey: "a") == 1)
        #expect(try await store.get(KeyQuery("b")) == 2)
    }

    private static func store(countLimit: Int? = nil, costLimit: Int? = nil) -> (
        MemoryDataSource<Data>, EvictionRecorder
    ) {
        let recorder = EvictionRecorder()
        var configuration = MemoryDataSource<Data>.Configuration(countLimit: countLimit, costLimit: costLimit)
        configuration.evictionObserver = recorder
        return (MemoryDataSource(configuration: configuration), recorder)
    }

    /// Puts "a" with the synchronous API and "b" as a data source.
    private static func putTwo(in store: MemoryDataSource<Data>) async throws {
        store.setValue(Data(count: 10), forKey: "a")
        _ = try await store.put(Data(count: 10), in: KeyQuery("b"))
    }

    private static func keepsNothing(_ store: MemoryDataSource<Data>) async throws -> Bool {
        do {
            _ = try await store.get(KeyQuery("b"))
            return false
        } catch let error as StrataError where error.code == .notFound {
            return store.value(forKey: "a") == nil && store.count == 0
        }
    }
}
