import Foundation
import Strata
import StrataMemory
import Testing

/// Costs, limits and trim fractions are the caller's numbers: none of them can trap the store, and none can switch
/// its limits off.
struct MemoryDataSourceAbsurdNumbersTests {
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
