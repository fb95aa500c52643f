import Foundation
import Strata
import StrataStorage
import StrataTesting
import Testing

@testable import StrataFile

/// A `.durable` file store that makes its folder flushes the folder that holds it, so the new folder's name is on
/// stable storage before the first write is acknowledged.
struct FileDataSourceFolderCreationTests {
    @Test(arguments: [StoreDurability.durable, .atomic])
    func aNewStoreFolderIsFlushedInItsParentInADurableStore(_ durability: StoreDurability) throws {
        let folder = try TemporaryFolder()
        let identity = try StoreFolder.open(folder.url.path, create: false).identity
        StoreFolder.watchSyncs(of: identity)
        defer { StoreFolder.unwatchSyncs(of: identity) }

        let store = try folder.makeStore(durability: durability)
        try store.setValue(.pattern(10), forKey: "k")

        #expect(StoreFolder.unwatchSyncs(of: identity) == (durability == .durable ? 1 : 0))
    }
}
