import Foundation
import Strata
import StrataMemory
import StrataTestSupport
import Testing

/// Costs, limits and trim fractions are the caller's numbers: none of them can trap the store, and none can switch
/// its limits off.
struct MemoryDataSourceAbsurdNumbersTests {
    /// `.seconds(_:)` trapped on a difference of dates past about 1.7e20 seconds, or one that is not a number. A
    /// memory store keeps a date as far as 1e300 seconds; one that is not a number only another source can report
    /// (a memory store refuses it), here one that answers every read with it.
    @Test("age(at:) of an entry stored at an absurd date saturates, and is nil for a date that is not a number")
    func ageOfAnAbsurdStoredDate() async throws {
        let memory = MemoryDataSource<String>()
        let entry = StoredEntry(value: "far", storedAt: Date(timeIntervalSinceReferenceDate: 1e300))
        _ = try await memory.putEntry(entry, in: KeyQuery("far"))
        let now = Date(timeIntervalSince1970: 1_700_000_000)

        let far = await SingleDataSourceRepository(memory).stream(KeyQuery("far")).first { $0.value != nil }
        let notANumber = await SingleDataSourceRepository(StoredAtNaN()).stream(KeyQuery("nan")).first {
            $0.value != nil
        }

        #expect(far?.storedAt != nil)
        #expect(far?.age(at: now) == .nanoseconds(Int64.min))
        #expect(notANumber?.storedAt != nil)
        #expect(notANumber?.age(at: now) == nil)
    }

    @Test(
        "setValue(_:forKey:metadata:) and renewMetadata refuse a date that is not a finite time, the store unchanged",
        arguments: NonFiniteMetadata.cases
    )
    func nonFiniteDatesAreRefused(_ name: String) throws {
        let metadata = NonFiniteMetadata.metadata(name)
        let store = MemoryDataSource<String>()
        store.setValue("kept", forKey: "kept")

        #expect { try store.setValue("new", forKey: "new", metadata: metadata) } throws: {
            ($0 as? StrataError)?.code == .invalidArgument
        }
        #expect { try store.renewMetadata(metadata, forKey: "kept") } throws: {
            ($0 as? StrataError)?.code == .invalidArgument
        }

        #expect(store.value(forKey: "new") == nil)
        let kept = try #require(store.entry(forKey: "kept"))
        // Compared as Bools: describing a `Date` that is not finite traps in Foundation.
        #expect(kept.metadata.freshUntil == nil)
        #expect(kept.expiresAt == nil)
        #expect(kept.storedAt?.timeIntervalSince1970.isFinite == true)
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

    /// The total saturated at `Int.max` and lost the excess: removing entries afterwards took their costs from
    /// `Int.max`, so it drifted below the true sum (here to 1 instead of `Int.max - 1`), and a cost limit stopped
    /// evicting while the store held more than it allows.
    @Test("a total that passed Int.max comes back to the true sum as entries go")
    func costsPastIntMaxComeBackExactly() {
        let costs = ["big": Int.max - 1, "huge": Int.max, "small": 1, "other": 2]
        let store = MemoryDataSource<String>(configuration: .init(cost: { costs[$0] ?? 0 }))
        for key in ["big", "huge", "small", "other"] { store.setValue(key, forKey: key) }
        #expect(store.totalCost == .max)

        store.removeValue(forKey: "huge")
        #expect(store.totalCost == .max, "Int.max - 1 + 1 + 2 is still past Int.max")
        store.removeValue(forKey: "other")
        #expect(store.totalCost == .max, "Int.max - 1 + 1 is Int.max exactly")
        store.setValue("other", forKey: "small")
        #expect(store.totalCost == .max, "replacing a cost of 1 with one of 2 passes Int.max again")
        store.removeValue(forKey: "big")
        #expect(store.totalCost == 2)
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

/// A source whose every entry was stored at a date that is not a number, as a remote source may report.
private struct StoredAtNaN: GetDataSource {
    func get(_ query: any Query) async throws -> String { "nan" }

    func getAll(_ query: any Query) async throws -> [String] { ["nan"] }

    func getEntry(_ query: any Query) async throws -> StoredEntry<String> {
        StoredEntry(value: "nan", storedAt: Date(timeIntervalSince1970: .nan))
    }
}
