import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataMemory

/// A memory source that held many entries and now holds few gives back the room of the removed ones, whichever
/// way they went (removal, expiry, eviction), and keeps its entries, their order and its index whole.
struct MemoryCompactionTests {
    /// The nodes and index cells the source holds.
    private func footprint(_ memory: MemoryDataSource<Int>) -> (nodes: Int, cells: Int) {
        memory.storage.withLock { ($0.nodes.count, $0.buckets.count) }
    }

    /// 10,000 entries, then all but every thousandth removed one by one in a shuffled order.
    @Test func removingMostEntriesGivesBackTheirRoom() {
        let memory = MemoryDataSource<Int>()
        for index in 0..<10_000 { memory.setValue(index, forKey: "key-\(index)") }
        #expect(footprint(memory).nodes == 10_000)
        var random = SeededRandomNumberGenerator(seed: 7)
        for index in (0..<10_000).shuffled(using: &random) where !index.isMultiple(of: 1_000) {
            #expect(memory.removeValue(forKey: "key-\(index)"))
        }

        #expect(memory.count == 10)
        let (nodes, cells) = footprint(memory)
        #expect(nodes <= 40, "nodes: \(nodes)")
        #expect(cells <= 128, "index cells: \(cells)")
        #expect(memory.keysByRecency == stride(from: 9_000, through: 0, by: -1_000).map { "key-\($0)" })
        for index in stride(from: 0, to: 10_000, by: 1_000) { #expect(memory.value(forKey: "key-\(index)") == index) }
        for index in 10_000..<12_000 { memory.setValue(index, forKey: "key-\(index)") }
        #expect(memory.count == 2_010)
        #expect(memory.value(forKey: "key-11999") == 11_999)
        #expect(memory.value(forKey: "key-0") == 0)
    }

    /// 10,000 entries that expire and 10 that do not: one `removeExpired()` leaves the arrays of 10.
    @Test func removingExpiredEntriesGivesBackTheirRoom() {
        let clock = ManualClock()
        let memory = MemoryDataSource<Int>(configuration: .init(clock: clock))
        for index in 0..<10_010 {
            memory.setValue(index, forKey: "key-\(index)", timeToLive: index < 10_000 ? .seconds(1) : nil)
        }
        clock.advance(by: .seconds(2))

        #expect(memory.removeExpired() == 10_000)

        #expect(footprint(memory).nodes == 10)
        #expect(memory.keysByRecency == (10_000..<10_010).reversed().map { "key-\($0)" })
        #expect(memory.value(forKey: "key-10005") == 10_005)
    }

    /// A trim to a thousandth evicts the least recently used until 10 are left, and gives back their room.
    @Test func evictingMostEntriesGivesBackTheirRoom() {
        let memory = MemoryDataSource<Int>(configuration: .init(countLimit: 10_000))
        for index in 0..<10_000 { memory.setValue(index, forKey: "key-\(index)") }

        memory.trim(keeping: 0.001)

        #expect(memory.count == 10)
        #expect(footprint(memory).nodes <= 40)
        #expect(memory.keysByRecency == (9_990..<10_000).reversed().map { "key-\($0)" })
        memory.setValue(-1, forKey: "key-new")
        #expect(memory.value(forKey: "key-9990") == 9_990)
        #expect(memory.keysByRecency.prefix(2) == ["key-9990", "key-new"])
    }
}
