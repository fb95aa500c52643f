import Foundation
import Strata
import StrataFile
import StrataTesting
import Testing

struct FileDataSourceEvictionTests {
    @Test func keepsAtMostMaxCountEntriesDroppingTheLeastRecentlyUsed() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(countLimit: 3)

        for index in 0..<5 { try store.setValue(.pattern(10), forKey: "k\(index)") }

        #expect(store.sortedKeys() == ["k2", "k3", "k4"])
        #expect(try folder.entryFiles().count == 3)
    }

    @Test func markUsedMakesAnEntryTheMostRecentlyUsedWithoutReadingIt() throws {
        // Given a store of two, a written first
        let clock = ManualClock()
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(clock: clock, countLimit: 2)
        try store.setValue(Data("a".utf8), forKey: "a")
        try store.setValue(Data("b".utf8), forKey: "b")
        clock.advance(by: .seconds(5))

        // When a is marked used and a third entry is written
        let marked = store.markUsed(forKey: "a")
        try store.setValue(Data("c".utf8), forKey: "c")

        // Then b, the least recently used, is evicted; markUsed described a as it is, last used now
        #expect(store.sortedKeys() == ["a", "c"])
        #expect(marked?.key == "a")
        #expect(marked?.size == 1)
        #expect(marked?.lastAccess == clock.now())
        #expect(marked?.contentHash == store.info(forKey: "a")?.contentHash)
        #expect(store.markUsed(forKey: "b") == nil)
    }

    @Test func anInfoLeavesTheRecencyAsItIs() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(countLimit: 2)
        try store.setValue(Data("a".utf8), forKey: "a")
        try store.setValue(Data("b".utf8), forKey: "b")

        _ = store.info(forKey: "a")
        try store.setValue(Data("c".utf8), forKey: "c")

        #expect(store.sortedKeys() == ["b", "c"])
    }

    @Test func keepsAtMostMaxSizeBytes() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(maxSize: 1_000)

        for index in 0..<10 { try store.setValue(.pattern(300), forKey: "k\(index)") }

        #expect(store.totalSize == 900)
        #expect(store.sortedKeys() == ["k7", "k8", "k9"])
        #expect {
            try store.setValue(.pattern(1_001), forKey: "huge")
        } throws: { ($0 as? StrataError)?.code == .tooLarge }
        #expect(store.count == 3)
    }

    @Test func readsMakeAnEntryRecentlyUsed() throws {
        let clock = ManualClock()
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(clock: clock, countLimit: 3)
        for key in ["a", "b", "c"] {
            try store.setValue(Data(key.utf8), forKey: key)
            clock.advance(by: .seconds(1))
        }

        _ = store.value(forKey: "a")
        try store.setValue(Data("d".utf8), forKey: "d")

        #expect(store.sortedKeys() == ["a", "c", "d"])
    }

    @Test func writesAtTheSameInstantKeepTheirOrder() throws {
        // Given a clock that never moves, as on a file system whose dates are all equal
        let clock = ManualClock()
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore(clock: clock, countLimit: 3)
        for key in ["first", "second", "third"] { try store?.setValue(Data(key.utf8), forKey: key) }

        // When one more entry is written, before and after a restart
        try store?.setValue(Data("fourth".utf8), forKey: "fourth")
        store = nil
        let reopened = try folder.makeStore(clock: clock, countLimit: 3)
        try reopened.setValue(Data("fifth".utf8), forKey: "fifth")

        // Then the oldest writes go first
        #expect(reopened.keysByRecency == ["fifth", "fourth", "third"])
    }

    /// The time to live counts from the write, not from an older stored date the entry carries (a copy of another
    /// tier's value): see `EntryMetadata.expiry(timeToLive:now:)`.
    @Test func theTimeToLiveCountsFromTheWriteNotFromAnOlderStoredDate() throws {
        let clock = ManualClock()
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(clock: clock, timeToLive: .seconds(60))
        let storedAt = clock.now().addingTimeInterval(-3_600)
        try store.setValue(Data("old".utf8), forKey: "old", metadata: EntryMetadata(storedAt: storedAt))
        clock.advance(by: .seconds(59))
        #expect(store.value(forKey: "old") == Data("old".utf8))
        #expect(store.info(forKey: "old")?.created == storedAt)
        clock.advance(by: .seconds(1))
        #expect(store.value(forKey: "old") == nil)
    }

    @Test func expiredEntriesAreMissesAndCleanupRemovesTheirFiles() throws {
        let clock = ManualClock()
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(clock: clock, timeToLive: .seconds(60))
        try store.setValue(Data("short".utf8), forKey: "short")
        try store.setValue(Data("long".utf8), forKey: "long", options: .init(timeToLive: .seconds(600)))
        try store.setValue(Data("gone".utf8), forKey: "gone")

        clock.advance(by: .seconds(59))
        #expect(store.value(forKey: "short") == Data("short".utf8))
        clock.advance(by: .seconds(1))
        #expect(store.value(forKey: "short") == nil)
        #expect(store.info(forKey: "gone") == nil)
        #expect(store.sortedKeys() == ["long"])

        try store.removeExpired()
        #expect(store.count == 1)
        #expect(try folder.entryFiles().count == 1)
    }

    @Test func evictionRemovesExpiredEntriesBeforeRecentlyUsedOnes() throws {
        let clock = ManualClock()
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(clock: clock, countLimit: 2)
        try store.setValue(Data("a".utf8), forKey: "old-but-valid")
        try store.setValue(Data("b".utf8), forKey: "recent-but-expiring", options: .init(timeToLive: .seconds(10)))

        clock.advance(by: .seconds(11))
        try store.setValue(Data("c".utf8), forKey: "new")

        #expect(store.sortedKeys() == ["new", "old-but-valid"])
    }

    @Test func cleanupEnforcesLimitsLoweredSinceTheLastRun() async throws {
        // Given 3,000 entries written without limits
        let folder = try TemporaryFolder()
        var store: FileDataSource? = try folder.makeStore()
        for index in 0..<3_000 {
            try store?.setValue(Data([UInt8(index & 0xFF)]), forKey: String(index))
            if index % 100 == 0 { await Task.yield() }
        }
        store = nil

        // When the store reopens with a count limit of 10 and cleans up
        let limited = try folder.makeStore(countLimit: 10)
        try limited.removeExpired()

        // Then the 10 most recent writes remain
        #expect(limited.count == 10)
        #expect(Set(limited.sortedKeys()) == Set((2_990..<3_000).map(String.init)))
        #expect(try folder.entryFiles().count == 10)
    }
}
