import Foundation
import Strata
import StrataFile
import StrataTestSupport
import StrataTesting
import Testing

/// A store opened over a folder that holds more than its limits allow (written with larger limits, or none) is
/// brought within them when it opens, by the rule a write applies: the least recently used entries go first.
struct FileDataSourceOpeningLimitTests {
    /// Five entries of 100 bytes, the first read last: opened with `maxSize` 250, the store keeps the two most
    /// recently used, and their files only.
    @Test func openingAppliesMaxSize() throws {
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            for index in 0..<5 { try store.setValue(.pattern(100, seed: UInt8(index)), forKey: "k\(index)") }
            #expect(store.value(forKey: "k0") == .pattern(100, seed: 0))
        }

        let store = try folder.makeStore(maxSize: 250)

        #expect(store.totalSize <= 250)
        #expect(store.sortedKeys() == ["k0", "k4"])
        #expect(try folder.entryFiles().count == 2)
        #expect(store.value(forKey: "k0") == .pattern(100, seed: 0))
        #expect(store.value(forKey: "k4") == .pattern(100, seed: 4))
    }

    /// The same for `countLimit`: the one rule covers both limits.
    @Test func openingAppliesCountLimit() throws {
        let folder = try TemporaryFolder()
        do {
            let store = try folder.makeStore()
            for index in 0..<4 { try store.setValue(.pattern(10), forKey: "k\(index)") }
        }

        let store = try folder.makeStore(countLimit: 3)

        #expect(store.sortedKeys() == ["k1", "k2", "k3"])
        #expect(try folder.entryFiles().count == 3)
    }

    /// An entry that cannot be removed (an immutable file: not even root may unlink it) stays, marked as just used,
    /// and the next least recently used goes in its place: the store opens within its limits and says so to
    /// `diagnostics` (`io`). A write then evicts past it without trying it again; once the file can go, it goes in
    /// its turn.
    @Test(.enabled(if: immutableFilesWork))
    func anEvictionThatFailsAsTheStoreOpensIsReported() throws {
        // Given four entries, the least recently used of them a file that cannot be removed
        let folder = try TemporaryFolder()
        let oldest: URL
        do {
            let store = try folder.makeStore()
            try store.setValue(.pattern(10), forKey: "k0")
            oldest = folder.storeURL().appendingPathComponent(try #require(try folder.entryFiles().first))
            for index in 1..<4 { try store.setValue(.pattern(10), forKey: "k\(index)") }
        }
        #expect(setImmutable(oldest, true))
        defer { setImmutable(oldest, false) }

        // When the store opens with room for three
        let reports = Locked<[StrataError]>([])
        let store = try folder.makeStore(
            countLimit: 3,
            diagnostics: { report in reports.withLock { $0.append(report) } }
        )

        // Then it opened within its limits, the next entry evicted in the stuck one's place, and reported the
        // failure; a write stands and evicts the least recently used, the stuck one now behind it
        let report = try #require(reports.withLock { $0 }.first)
        #expect(report.code == .io)
        #expect(report.message.contains("FileDataSource could not remove an entry it evicts"), "\(report)")
        #expect(store.sortedKeys() == ["k0", "k2", "k3"])
        try store.setValue(.pattern(10, seed: 4), forKey: "k4")
        #expect(store.value(forKey: "k4") == .pattern(10, seed: 4))
        #expect(reports.withLock { $0.count } == 1)
        #expect(store.sortedKeys() == ["k0", "k3", "k4"])
        setImmutable(oldest, false)
        try store.setValue(.pattern(10), forKey: "k5")
        try store.setValue(.pattern(10, seed: 6), forKey: "k6")
        #expect(store.sortedKeys() == ["k4", "k5", "k6"])
        #expect(reports.withLock { $0.count } == 1)
        #expect(try folder.entryFiles().count == 3)
    }

    /// One eviction passes over at most `maximumStuckEvictions` entries it cannot remove: a folder where nothing can
    /// be removed costs a write a bounded number of failed calls, and the store says it stays over its limits.
    @Test(.enabled(if: immutableFilesWork))
    func anEvictionPassesOverABoundedNumberOfStuckEntries() throws {
        // Given twelve entries, the ten least recently used of them files that cannot be removed
        let folder = try TemporaryFolder()
        var stuck: [URL] = []
        do {
            let store = try folder.makeStore()
            for index in 0..<12 {
                let before = Set(try folder.entryFiles())
                try store.setValue(.pattern(10, seed: UInt8(index)), forKey: "k\(index)")
                let written = try #require(Set(try folder.entryFiles()).subtracting(before).first)
                if index < 10 { stuck.append(folder.storeURL().appendingPathComponent(written)) }
            }
        }
        #expect(stuck.allSatisfy { setImmutable($0, true) })
        defer { for file in stuck { setImmutable(file, false) } }

        // When the store opens with room for one
        let reports = Locked<[StrataError]>([])
        let store = try folder.makeStore(
            countLimit: 1,
            diagnostics: { report in reports.withLock { $0.append(report) } }
        )

        // Then it tried the eight least recently used, kept them, evicted nothing past them, and said it is over its
        // limits
        #expect(store.sortedKeys().count == 12)
        #expect(reports.withLock { $0.count } == 1)
        #expect(reports.withLock { $0 }.first?.message.contains("is over its limits") == true)
    }

    /// Before, `removeExpired()` skipped the eviction of least recently used entries whenever an expired entry could
    /// not be removed: a store left over its limits stayed so. Now it evicts all the same and throws the first
    /// failure.
    @Test(.enabled(if: immutableFilesWork))
    func removeExpiredEvictsThoughAnExpiredEntryCannotBeRemoved() throws {
        // Given twelve entries, the ten least recently used of them expiring files that cannot be removed, in a store
        // opened over its count limit (more stuck entries than one eviction passes over)
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        var stuck: [URL] = []
        do {
            let store = try folder.makeStore(clock: clock)
            for index in 0..<12 {
                let before = Set(try folder.entryFiles())
                let options = FileDataSource.EntryOptions(timeToLive: index < 10 ? .seconds(10) : nil)
                try store.setValue(.pattern(10, seed: UInt8(index)), forKey: "k\(index)", options: options)
                let written = try #require(Set(try folder.entryFiles()).subtracting(before).first)
                if index < 10 { stuck.append(folder.storeURL().appendingPathComponent(written)) }
            }
        }
        #expect(stuck.allSatisfy { setImmutable($0, true) })
        defer { for file in stuck { setImmutable(file, false) } }
        let store = try folder.makeStore(clock: clock, countLimit: 1, diagnostics: { _ in })
        #expect(store.sortedKeys().count == 12)

        // When the stuck entries expire and expired entries are removed
        clock.advance(by: .seconds(11))
        #expect(throws: StrataError.self) { try store.removeExpired() }

        // Then the entries that can go went all the same: the stuck ones stay (expired, out of every listing)
        #expect(store.sortedKeys().isEmpty)
        #expect(try folder.entryFiles().count == 10)
    }

    /// Stuck entries alone over a limit never take the entry just written with them: a write past one stuck entry
    /// under a count limit of one keeps its value (reported over its limits), where it was evicted as it returned.
    @Test(.enabled(if: immutableFilesWork))
    func aWritePastAStuckEntryKeepsItsValue() throws {
        let folder = try TemporaryFolder()
        let reports = Locked<[StrataError]>([])
        let store = try folder.makeStore(
            countLimit: 1,
            diagnostics: { report in reports.withLock { $0.append(report) } }
        )
        try store.setValue(.pattern(10), forKey: "k0")
        let stuck = folder.storeURL().appendingPathComponent(try #require(try folder.entryFiles().first))
        #expect(setImmutable(stuck, true))
        defer { setImmutable(stuck, false) }

        try store.setValue(.pattern(10, seed: 1), forKey: "k1")

        #expect(store.value(forKey: "k1") == .pattern(10, seed: 1))
        #expect(store.sortedKeys() == ["k0", "k1"])
        #expect(reports.withLock { $0 }.first?.message.contains("is over its limits") == true)
    }
}
