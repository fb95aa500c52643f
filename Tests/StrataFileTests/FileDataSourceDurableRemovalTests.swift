import Foundation
import Strata
import StrataStorage
import StrataTesting
import Testing

@testable import StrataFile

/// In a `.durable` store a removal the caller asked for is flushed before the call returns, as a write is: a
/// removed entry (a signed-out user's data, say) does not come back after a power cut. The folder's flushes are
/// counted through `StoreFolder`'s watch, since an `fsync` leaves nothing to look at afterwards.
struct FileDataSourceDurableRemovalTests {
    /// The flushes of the store's folder while `body` runs.
    private func flushes(of folder: TemporaryFolder, during body: () throws -> Void) throws -> Int {
        let identity = try StoreFolder.open(folder.storeURL().path, create: false).identity
        StoreFolder.watchSyncs(of: identity)
        defer { StoreFolder.unwatchSyncs(of: identity) }
        try body()
        return StoreFolder.unwatchSyncs(of: identity) ?? 0
    }

    @Test(arguments: [StoreDurability.durable, .atomic])
    func removalsAreFlushedInADurableStore(_ durability: StoreDurability) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try folder.makeStore(durability: durability)
        for key in ["a", "b", "c"] { try store.setValue(Data(key.utf8), forKey: key) }

        var removed: [Bool] = []
        let removal = try flushes(of: folder) { removed.append(try store.removeValue(forKey: "a")) }
        let nothing = try flushes(of: folder) { removed.append(try store.removeValue(forKey: "a")) }
        let all = try flushes(of: folder) { try store.removeAll() }

        #expect(removed == [true, false])
        #expect(removal == (durability == .durable ? 1 : 0))
        #expect(nothing == 0)
        #expect(all == (durability == .durable ? 1 : 0))
        #expect(store.count == 0)
    }
}

/// A removal decided from what a caller read (a cleaning that judged a blob stale) removes that entry only: a
/// write or a renewal made since keeps it (the cleaning removed the fresh blob that replaced the stale one).
struct FileDataSourceConditionalRemovalTests {
    @Test func aRemovalDecidedFromAnEarlierLookSparesAWriteOrARenewalMadeSince() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let store = try folder.makeStore(clock: clock)
        try store.setValue(Data("stale".utf8), forKey: "k")
        let judged = try #require(store.info(forKey: "k"))

        // A write since: spared
        clock.advance(by: .seconds(1))
        try store.setValue(Data("fresh".utf8), forKey: "k")
        #expect(try !store.removeValue(forKey: "k", ifStill: judged))
        #expect(store.value(forKey: "k") == Data("fresh".utf8))

        // A renewal since: spared
        let written = try #require(store.info(forKey: "k"))
        clock.advance(by: .seconds(1))
        #expect(try store.renewMetadata(EntryMetadata(freshUntil: clock.now().addingTimeInterval(60)), forKey: "k"))
        #expect(try !store.removeValue(forKey: "k", ifStill: written))
        #expect(store.value(forKey: "k") == Data("fresh".utf8))

        // The entry as looked at: removed
        let current = try #require(store.info(forKey: "k"))
        #expect(try store.removeValue(forKey: "k", ifStill: current))
        #expect(store.value(forKey: "k") == nil)
    }
}
