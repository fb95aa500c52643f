import Foundation
import Strata
import StrataFile
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
}
