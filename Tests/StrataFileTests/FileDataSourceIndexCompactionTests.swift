import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataFile

/// A file store that held many entries and now holds few gives back the room of the removed ones in its index (its
/// slots kept the size of the largest count ever reached, for the life of the process), and keeps its entries,
/// their order and their lookups whole.
struct FileDataSourceIndexCompactionTests {
    /// The slots the store's index holds, entries and free ones.
    private func slotCount(_ store: FileDataSource) -> Int {
        store.state.withLock { $0.index.slotCount }
    }

    @Test(arguments: ["removal", "expiry"])
    func droppingMostEntriesGivesBackTheirRoom(way: String) throws {
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        let store = try FileDataSource(
            configuration: .init(location: .url(folder.url), identifier: "store", clock: clock)
        )
        // Given 1,000 entries, of which every 50th is kept (in an order the removals do not follow)
        for index in 0..<1_000 {
            let lifetime: Duration? = index.isMultiple(of: 50) || way == "removal" ? nil : .seconds(60)
            try store.setValue(Data("\(index)".utf8), forKey: "key-\(index)", options: .init(timeToLive: lifetime))
        }
        #expect(slotCount(store) == 1_000)

        // When the others go, one by one in a shuffled order or all at once by expiry
        if way == "removal" {
            var random = SeededRandomNumberGenerator(seed: 7)
            for index in (0..<1_000).shuffled(using: &random) where !index.isMultiple(of: 50) {
                try store.removeValue(forKey: "key-\(index)")
            }
        } else {
            clock.advance(by: .seconds(61))
            try store.removeExpired()
        }

        // Then the index holds about the slots of the 20 left, in their order, each found by its key
        #expect(store.count == 20)
        #expect(slotCount(store) <= 80, "slots: \(slotCount(store))")
        #expect(store.keysByRecency == stride(from: 950, through: 0, by: -50).map { "key-\($0)" })
        for index in stride(from: 0, to: 1_000, by: 50) {
            #expect(store.value(forKey: "key-\(index)") == Data("\(index)".utf8))
        }
        try store.setValue(Data("new".utf8), forKey: "key-new")
        #expect(store.count == 21)
        #expect(store.value(forKey: "key-new") == Data("new".utf8))
        #expect(store.value(forKey: "key-0") == Data("0".utf8))
    }
}
