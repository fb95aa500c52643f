import Foundation
import Strata
import StrataMemory
import StrataTesting
import Testing

/// Many tasks mix gets, puts, deletes, purges and expiry sweeps on one memory source with count, cost and
/// time limits; then the limits hold and the bookkeeping matches the contents.
struct ReliabilityMemoryTests {
    @Test func concurrentMixedOperationsKeepLimitsAndBookkeeping() async throws {
        // Given a source limited to 50 entries and 20,000 bytes, with a 10 s lifetime on a manual clock
        let clock = ManualClock()
        let memory = MemoryDataSource<Data>(
            configuration: .init(
                countLimit: 50,
                costLimit: 20_000,
                timeToLive: .seconds(10),
                cost: { $0.count },
                clock: clock
            )
        )

        // When 16 tasks run 2,000 operations each on 200 keys
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var generator = SeededRandomNumberGenerator(seed: UInt64(task) + 7)
                    for step in 0..<2_000 {
                        let key = "k\(generator.next() % 200)"
                        switch generator.next() % 100 {
                        case 0..<45: memory.setValue(Self.value(key, version: step), forKey: key)
                        case 45..<55: _ = memory.removeValue(forKey: key)
                        case 55..<90:
                            if let value = memory.value(forKey: key) { #expect(Self.isWhole(value, key: key)) }
                        case 90..<95:
                            do {
                                let value = try await memory.get(KeyQuery(key))
                                #expect(Self.isWhole(value, key: key))
                            } catch let error as StrataError where error.code == .notFound {
                                // Evicted, deleted or expired by another task.
                            }
                        case 95..<97: memory.trim(keeping: 0.5)
                        case 97..<99: clock.advance(by: .seconds(1))
                        default: memory.removeExpired()
                        }
                        if step % 100 == 0 { await Task.yield() }
                    }
                }
            }
            try await group.waitForAll()
        }

        // Then, once the entries the last clock advances expired are swept (`count` includes expired entries until
        // they are read or removed; `sortedKeys()` lists live keys only, so an entry that expired after the last
        // sweep made the two differ by one)
        memory.removeExpired()
        let keys = memory.sortedKeys()
        #expect(memory.count <= 50)
        #expect(memory.totalCost <= 20_000)
        #expect(memory.count == keys.count)
        #expect(Set(memory.keysByRecency) == Set(keys))
        let values = keys.compactMap { memory.value(forKey: $0) }
        #expect(values.count == keys.count)
        #expect(memory.totalCost == values.reduce(0) { $0 + $1.count })
        for (key, value) in zip(keys, values) { #expect(Self.isWhole(value, key: key), "\(key)") }
    }

    static func value(_ key: String, version: Int) -> Data {
        Data("\(key)|".utf8) + Data(repeating: UInt8(truncatingIfNeeded: version), count: version % 900)
    }

    static func isWhole(_ value: Data, key: String) -> Bool {
        guard value.starts(with: Data("\(key)|".utf8)) else { return false }
        let body = value.dropFirst(key.utf8.count + 1)
        return body.allSatisfy { $0 == body.first }
    }
}
