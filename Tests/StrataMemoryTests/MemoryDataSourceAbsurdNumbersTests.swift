import Foundation
import Strata
import StrataMemory
import Testing

/// Costs, limits and trim fractions are the caller's numbers: none of them can trap the store, and none can switch
/// its limits off.
struct MemoryDataSourceAbsurdNumbersTests {
    /// `.seconds(_:)` trapped on a difference of dates past about 1.7e20 seconds, or one that is not a number.
    @Test("age(at:) of an entry stored at an absurd date saturates, and is nil for a date that is not a number")
    func ageOfAnAbsurdStoredDate() async throws {
        let memory = MemoryDataSource<String>()
        for (key, seconds) in [("far", 1e300), ("nan", Double.nan)] {
            let entry = StoredEntry(value: key, storedAt: Date(timeIntervalSinceReferenceDate: seconds))
            _ = try await memory.putEntry(entry, in: KeyQuery(key))
        }
        let repository = SingleDataSourceRepository(memory)
        let now = Date(timeIntervalSince1970: 1_700_000_000)

        let far = await repository.stream(KeyQuery("far")).first { $0.value != nil }
        let notANumber = await repository.stream(KeyQuery("nan")).first { $0.value != nil }

        #expect(far?.storedAt != nil)
        #expect(far?.age(at: now) == .nanoseconds(Int64.min))
        #expect(notANumber?.storedAt != nil)
        #expect(notANumber?.age(at: now) == nil)
    }

    @Test("trim(keeping:) with a fraction that is not a number empties the store")
    func trimKeepingNaNEmpties() {
        let store = MemoryDataSource<String>()
        store.setValue("a", forKey: "a")
        store.setValue("b", forKey: "b")

        store.trim(keeping: .nan)

        #expect(store.count == 0)
    }

    @Test("trim(keeping:) under limits of Int.max keeps what the fraction says", arguments: [1.0, 0.999, .infinity])
    func trimUnderTheLargestLimits(fraction: Double) {
        let store = MemoryDataSource<String>(configuration: .init(countLimit: .max, costLimit: .max))
        store.setValue("a", forKey: "a")
        store.setValue("b", forKey: "b")

        store.trim(keeping: fraction)

        #expect(store.count == 2)
    }

    @Test("costs that add up past Int.max are held at Int.max, and the store keeps working")
    func costsPastIntMax() {
        let store = MemoryDataSource<String>(configuration: .init(cost: { _ in .max }))
        store.setValue("a", forKey: "a")
        store.setValue("b", forKey: "b")
        store.setValue("c", forKey: "a")

        #expect(store.totalCost == .max)
        #expect(store.value(forKey: "a") == "c")
        #expect(store.removeValue(forKey: "b"))
        #expect(store.count == 1)
    }

    @Test("a negative cost counts as 0: it does not lower the total below what the limit is checked against")
    func negativeCostsDoNotSwitchTheLimitOff() {
        let store = MemoryDataSource<String>(
            configuration: .init(costLimit: 10, cost: { $0 == "negative" ? -1_000 : $0.utf8.count })
        )
        store.setValue("negative", forKey: "n")
        for key in ["a", "b", "c", "d"] { store.setValue("12345", forKey: key) }

        #expect(store.totalCost <= 10)
        #expect(store.value(forKey: "a") == nil, "the least recently used entry was kept past the cost limit")
        #expect(store.value(forKey: "d") == "12345")
    }
}
