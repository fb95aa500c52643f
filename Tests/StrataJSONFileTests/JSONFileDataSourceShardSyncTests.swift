import Foundation
import Strata
import StrataStorage
import Testing

@testable import StrataJSONFile

/// A durable put flushes the shard folder its entry file was renamed into, whether the store keeps that folder open
/// or not: the kept shards are an allowance shared by every JSON store of the process, which others can use up.
struct JSONFileDataSourceShardSyncTests {
    /// Takes every slot of the process's allowance of kept shard folders that is free now.
    private static func takeFreeSlots(_ folder: StoreFolder, into held: inout [KeptShard]) {
        while let kept = KeptShard(folder) { held.append(kept) }
    }

    @Test func aDurablePutFlushesItsShardFolderWhenNoShardCanBeKeptOpen() async throws {
        try await withTemporaryFolder { url in
            // Given a durable store that can keep no shard folder open (other stores hold the whole allowance)
            var held: [KeptShard] = []
            defer { held.removeAll() }
            Self.takeFreeSlots(try StoreFolder.open(url.path, create: true), into: &held)
            let store = try JSONFileDataSource<Item>(configuration: .init(folder: url, durability: .durable))
            try store.setValue(Item(name: "k", number: 1), forKey: "k")
            let entries = url.appendingPathComponent(JSONFileStorage.entriesName)
            let shards = try FileManager.default.contentsOfDirectory(atPath: entries.path)
            let shardURL = entries.appendingPathComponent(try #require(shards.first))
            let shard = try StoreFolder.open(shardURL.path, create: false)
            #expect(shards.count == 1)
            StoreFolder.watchSyncs(of: shard.identity)
            defer { StoreFolder.unwatchSyncs(of: shard.identity) }

            // When it writes an entry of that shard again
            Self.takeFreeSlots(shard, into: &held)
            try store.setValue(Item(name: "k", number: 2), forKey: "k")

            // Then the shard folder was flushed after the rename
            #expect((StoreFolder.unwatchSyncs(of: shard.identity) ?? 0) >= 1)
            #expect(try store.value(forKey: "k") == Item(name: "k", number: 2))
        }
    }
}
