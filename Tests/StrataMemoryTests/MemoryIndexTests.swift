import Foundation
import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

/// The memory source's own hash index and its eviction in place, against a plain reference model.
struct MemoryIndexTests {
    /// The reference: keys from the most to the least recently used, values and expiry dates.
    private struct Model {
        var order: [String] = []
        var values: [String: (value: Int, expiresAt: Date?)] = [:]
        let countLimit: Int

        mutating func put(_ value: Int, _ key: String, expiresAt: Date?) {
            order.removeAll { $0 == key }
            order.insert(key, at: 0)
            values[key] = (value, expiresAt)
            while order.count > countLimit { values[order.removeLast()] = nil }
        }

        mutating func read(_ key: String, now: Date) -> Int? {
            guard let entry = values[key] else { return nil }
            order.removeAll { $0 == key }
            if let expiresAt = entry.expiresAt, now >= expiresAt {
                values[key] = nil
                return nil
            }
            order.insert(key, at: 0)
            return entry.value
        }

        mutating func remove(_ key: String) -> Bool {
            guard values.removeValue(forKey: key) != nil else { return false }
            order.removeAll { $0 == key }
            return true
        }

        mutating func removeExpired(now: Date) {
            for (key, entry) in values {
                if let expiresAt = entry.expiresAt, now >= expiresAt { _ = remove(key) }
            }
        }

        mutating func purge(toCount target: Int) {
            while order.count > target { values[order.removeLast()] = nil }
        }
    }

    /// Small limits over 64 keys (long probe runs, shifts on removal and growth) and a limit of 300 over 400 keys,
    /// whose trims to a tenth leave the arrays sparse enough to be compacted.
    @Test(arguments: [1, 7, 48, 300])
    func aLongRandomMixOfOperationsMatchesASimpleLRUModel(countLimit: Int) {
        let clock = ManualClock()
        let memory = MemoryDataSource<Int>(configuration: .init(countLimit: countLimit, clock: clock))
        var model = Model(countLimit: countLimit)
        var random = SeededRandomNumberGenerator(seed: UInt64(countLimit))
        for step in 0..<20_000 {
            let key = "k\(Int.random(in: 0..<max(64, countLimit + countLimit / 3), using: &random))"
            switch Int.random(in: 0..<200, using: &random) {
            case 0..<100:
                let lifetime: Duration? =
                    Bool.random(using: &random) ? .seconds(Int.random(in: 1...4, using: &random)) : nil
                memory.setValue(step, forKey: key, timeToLive: lifetime)
                model.put(step, key, expiresAt: lifetime.map { clock.now().addingTimeInterval($0.timeInterval) })
            case 100..<150:
                #expect(memory.value(forKey: key) == model.read(key, now: clock.now()))
            case 150..<180:
                #expect(memory.removeValue(forKey: key) == model.remove(key))
            case 180..<192:
                clock.advance(by: .seconds(1))
            case 192..<196:
                memory.removeExpired()
                model.removeExpired(now: clock.now())
            case 196..<198:
                memory.trim(keeping: 0.5)
                model.purge(toCount: Int(Double(countLimit) * 0.5))
            case 198:
                memory.trim(keeping: 0.1)
                model.purge(toCount: Int(Double(countLimit) * 0.1))
            default:
                memory.removeAll()
                model = Model(countLimit: countLimit)
            }
            #expect(memory.count == model.order.count)
            #expect(memory.keysByRecency == model.order, "after step \(step)")
            if memory.keysByRecency != model.order { return }
        }
    }

    @Test func aLargeIndexFindsEveryKeyAfterGrowingAndAfterRemovingHalf() {
        let memory = MemoryDataSource<Int>()
        for index in 0..<5_000 { memory.setValue(index, forKey: "key-\(index)") }
        for index in stride(from: 0, to: 5_000, by: 2) { #expect(memory.removeValue(forKey: "key-\(index)")) }
        #expect(memory.count == 2_500)
        var misses = 0
        for index in 0..<5_000 where (memory.value(forKey: "key-\(index)") == nil) != index.isMultiple(of: 2) {
            misses += 1
        }
        #expect(misses == 0)
        // Removed slots are reused by new keys.
        for index in 5_000..<7_500 { memory.setValue(index, forKey: "key-\(index)") }
        #expect(memory.count == 5_000)
        #expect(memory.value(forKey: "key-7499") == 7_499)
        #expect(memory.value(forKey: "key-1") == 1)
    }

    @Test func evictionInPlaceKeepsCostAndStoredDatesOfTheNewEntry() throws {
        let clock = ManualClock()
        let memory = MemoryDataSource<Data>(configuration: .init(countLimit: 2, clock: clock))
        memory.setValue(Data(count: 10), forKey: "a")
        memory.setValue(Data(count: 20), forKey: "b")
        clock.advance(by: .seconds(5))
        memory.setValue(Data(count: 3), forKey: "c")  // evicts "a" and takes its place
        #expect(memory.totalCost == 23)
        #expect(memory.keysByRecency == ["c", "b"])
        let entry = try #require(memory.entry(forKey: "c"))
        #expect(entry.storedAt == clock.now())
        #expect(entry.value.count == 3)
    }

    @Test func directSubscribersOneAfterAnotherEachReceiveWrites() async throws {
        let memory = MemoryDataSource<Int>(countLimit: 4)
        for round in 0..<3 {
            let stream = memory.changeBroadcaster.changes(forKey: "k", bufferingNewest: 4)
            memory.setValue(round, forKey: "other")
            memory.setValue(round, forKey: "k")
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next() == .put(key: "k"))
        }
        // Once every stream is gone, writes find no observer again.
        #expect(
            await poll(within: .seconds(20)) { memory.changeBroadcaster.observerCount == 0 },
            "every stream's registration to end"
        )
        let stream = memory.changeBroadcaster.changes()
        memory.setValue(9, forKey: "late")
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .put(key: "late"))
    }
}
