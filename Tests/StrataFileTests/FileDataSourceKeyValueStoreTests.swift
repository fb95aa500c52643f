import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataFile

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file store under the store contract: renewal, the key rule on disk, partial writes announced.
struct FileDataSourceKeyValueStoreTests {
    /// The inode of the file at `url` (not following a link).
    static func inode(_ url: URL) throws -> UInt64 {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw POSIXError(.ENOENT) }
        return UInt64(info.st_ino)
    }

    @Test func aRenewalRewritesOnlyTheTrailerAndSurvivesAReopen() async throws {
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        var store: FileDataSource? = try folder.makeStore(clock: clock, timeToLive: .seconds(60))
        let payload = Data.pattern(100_000)
        try store?.setValue(payload, forKey: "blob", options: .init(eTag: "\"v1\"", attributes: Data([1, 2, 3])))
        let file = folder.storeURL().appendingPathComponent(try #require(try folder.entryFiles().first))
        let inodeBefore = try Self.inode(file)

        let renewed = EntryMetadata(
            storedAt: clock.now(),
            expiresAt: clock.now().addingTimeInterval(3_600),
            eTag: "\"a-much-longer-entity-tag-v2\""
        )
        #expect(try store?.renewMetadata(renewed, forKey: "blob") == true)

        // The same file (no rename, so no rewrite of the body), the same bytes of data.
        #expect(try Self.inode(file) == inodeBefore)
        #expect(try Data(contentsOf: file).prefix(payload.count) == payload)
        clock.advance(by: .seconds(120))
        let entry = try #require(store?.entry(forKey: "blob"))
        #expect(entry.value == payload)
        #expect(entry.metadata == renewed)
        #expect(store?.info(forKey: "blob")?.attributes == Data([1, 2, 3]))

        store = nil
        let reopened = try folder.makeStore(clock: clock)
        #expect(reopened.entry(forKey: "blob")?.metadata == renewed)
        #expect(try reopened.renewMetadata(renewed, forKey: "missing") == false)
    }

    @Test func aRenewalWithAttributesLandsOnlyOnTheVersionItNames() throws {
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        let store = try folder.makeStore(clock: clock)
        let payload = Data.pattern(10_000)
        try store.setValue(payload, forKey: "blob", options: .init(eTag: "\"v1\"", attributes: Data([1])))
        let file = folder.storeURL().appendingPathComponent(try #require(try folder.entryFiles().first))
        let inodeBefore = try Self.inode(file)
        let version = try #require(store.info(forKey: "blob")?.contentHash)
        let renewed = EntryMetadata(
            storedAt: clock.now(),
            freshUntil: clock.now().addingTimeInterval(60),
            eTag: "\"v1\""
        )

        // The version it names: metadata and attributes replaced in the same file, the data untouched.
        let longer = Data(repeating: 7, count: 40)
        #expect(try store.renewMetadata(renewed, attributes: longer, ifContentHash: version, forKey: "blob"))
        #expect(try Self.inode(file) == inodeBefore)
        #expect(store.info(forKey: "blob")?.attributes == longer)
        #expect(store.entry(forKey: "blob")?.metadata == renewed)
        #expect(store.value(forKey: "blob") == payload)
        // Shorter attributes cut the file to the new trailer; nil removes them.
        #expect(try store.renewMetadata(renewed, attributes: nil, ifContentHash: version, forKey: "blob"))
        #expect(store.info(forKey: "blob")?.attributes == nil)
        #expect(store.value(forKey: "blob") == payload)

        // Another version written in between: the renewal computed for the first one does not land.
        try store.setValue(Data("v2".utf8), forKey: "blob", options: .init(attributes: Data([2])))
        #expect(try !store.renewMetadata(renewed, attributes: longer, ifContentHash: version, forKey: "blob"))
        #expect(store.info(forKey: "blob")?.attributes == Data([2]))
        #expect(try !store.renewMetadata(renewed, attributes: longer, ifContentHash: version, forKey: "missing"))

        // Attributes over the limit are refused before anything is written.
        let tooMany = Data(count: FileDataSource.EntryOptions.maxAttributesSize + 1)
        let current = try #require(store.info(forKey: "blob")?.contentHash)
        #expect(throws: StrataError.self) {
            try store.renewMetadata(renewed, attributes: tooMany, ifContentHash: current, forKey: "blob")
        }
        #expect(store.value(forKey: "blob") == Data("v2".utf8))
    }

    @Test func aRenewalNeverWritesThroughAHardLink() throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore()
        try store.setValue(Data("entry".utf8), forKey: "k")
        let file = folder.storeURL().appendingPathComponent(try #require(try folder.entryFiles().first))
        // Another file of the user's, reached by a hard link planted over the entry's name.
        let victim = folder.url.appendingPathComponent("victim")
        let entryBytes = try Data(contentsOf: file)
        try entryBytes.write(to: victim)
        try FileManager.default.removeItem(at: file)
        #expect(link(victim.path, file.path) == 0)

        #expect(throws: StrataError.self) {
            try store.renewMetadata(EntryMetadata(expiresAt: .distantFuture), forKey: "k")
        }
        #expect(try Data(contentsOf: victim) == entryBytes)
        #expect(store.value(forKey: "k") == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// Before, renewing an entry whose file was deleted behind the store's back threw `io` and told `diagnostics`
    /// it had found another file than its own (`corrupt`): a missing file is a miss, as a read takes it.
    @Test func aRenewalOfAnEntryWhoseFileWasDeletedIsAMiss() throws {
        let folder = try TemporaryFolder()
        let reports = Locked<[StrataError]>([])
        let store = try folder.makeStore(diagnostics: { report in reports.withLock { $0.append(report) } })
        try store.setValue(Data("entry".utf8), forKey: "k")
        try FileManager.default.removeItem(
            at: folder.storeURL().appendingPathComponent(EntryName(key: "k").fileName)
        )

        #expect(try store.renewMetadata(EntryMetadata(expiresAt: .distantFuture), forKey: "k") == false)

        #expect(store.value(forKey: "k") == nil)
        #expect(store.sortedKeys().isEmpty)
        #expect(reports.withLock { $0 }.isEmpty)
    }

    /// Before, an earlier version's file named from a key not in NFC was renamed onto the NFC name at opening even
    /// when a file the store left out stood there (one a later version wrote): the newer entry was lost.
    @Test func aLegacyFileIsNotRenamedOverAFileTheStoreLeftOut() throws {
        let folder = try TemporaryFolder()
        let decomposed = "cafe\u{301}"
        let storeFolder = folder.storeURL()
        let current = storeFolder.appendingPathComponent(EntryName(key: decomposed).fileName)
        let legacy = storeFolder.appendingPathComponent(EntryName(rawKey: decomposed).fileName)
        var store: FileDataSource? = try folder.makeStore()
        try store?.setValue(Data("legacy".utf8), forKey: decomposed)
        let legacyBytes = try Data(contentsOf: current)
        try store?.setValue(Data("later".utf8), forKey: decomposed)
        store = nil
        // What an earlier version wrote under the raw name, and what a later version wrote under the NFC one.
        try legacyBytes.write(to: legacy)
        try TrailerSurgery.editTrailer(of: current) { $0[0] = EntryTrailer.taggedVersion + 1 }
        let later = try Data(contentsOf: current)

        let reopened = try folder.makeStore()

        #expect(try Data(contentsOf: current) == later, "the later version's entry is left as it is")
        #expect(try Data(contentsOf: legacy) == legacyBytes, "the legacy file stays where it was")
        #expect(reopened.value(forKey: decomposed) != Data("legacy".utf8))
    }

    @Test func aFileNamedFromAKeyNotInNFCIsRenamedWhenTheStoreOpens() throws {
        let folder = try TemporaryFolder()
        let decomposed = "cafe\u{301}"
        var store: FileDataSource? = try folder.makeStore()
        try store?.setValue(Data("legacy".utf8), forKey: decomposed)
        store = nil
        // What an earlier version wrote: the file named by the hashes of the raw NFD bytes.
        let storeFolder = folder.storeURL()
        try FileManager.default.moveItem(
            at: storeFolder.appendingPathComponent(EntryName(key: decomposed).fileName),
            to: storeFolder.appendingPathComponent(EntryName(rawKey: decomposed).fileName)
        )

        let reopened = try folder.makeStore()
        #expect(reopened.value(forKey: "caf\u{E9}") == Data("legacy".utf8))
        #expect(reopened.value(forKey: decomposed) == Data("legacy".utf8))
        #expect(try folder.entryFiles() == [EntryName(key: decomposed).fileName])
        #expect(reopened.corruptEntriesRemoved == 0)
    }

    @Test func aPutAllThatFailsHalfWayAnnouncesTheKeysItWrote() async throws {
        let folder = try TemporaryFolder()
        let store = try folder.makeStore(maxSize: 10)
        var changes = store.changeBroadcaster.changes(forKey: nil, bufferingNewest: 10).makeAsyncIterator()

        await #expect(throws: StrataError.self) {
            _ = try await store.putAll(
                [Data("small".utf8), Data.pattern(20), Data("third".utf8)],
                in: IdsQuery(["a", "b", "c"])
            )
        }
        try store.removeValue(forKey: "a")

        #expect(await changes.next() == .put(key: "a"))
        #expect(await changes.next() == .delete(key: "a"))
        #expect(store.sortedKeys().isEmpty)
    }

    @Test func putAllOfAllObjectsUsesTheConfiguredKey() async throws {
        let folder = try TemporaryFolder()
        let store = try FileDataSource(
            configuration: .init(
                location: .url(folder.url),
                identifier: "keyed",
                key: { String(decoding: $0.prefix(1), as: UTF8.self) }
            )
        )
        _ = try await store.putAll([Data("b2".utf8), Data("a1".utf8)], in: AllObjectsQuery())
        #expect(store.sortedKeys() == ["a", "b"])
        #expect(try await store.getAll(AllObjectsQuery()) == [Data("a1".utf8), Data("b2".utf8)])
        #expect(try await store.getAll(KeyQuery("a")) == [Data("a1".utf8)])
    }

    /// Before, an entry of the stored answer put again with a shorter time to live than the answer's expired on its
    /// own, out of the listing, and what was left was served as every entry until the answer expired.
    @Test func anEntryPutAgainWithAShorterLifeTakesTheAnswerWithItWhenItExpires() async throws {
        let folder = try TemporaryFolder()
        let clock = ManualClock()
        let store = try FileDataSource(
            configuration: .init(
                location: .url(folder.url),
                identifier: "keyed",
                timeToLive: .seconds(300),
                clock: clock,
                key: { String(decoding: $0.prefix(1), as: UTF8.self) }
            )
        )
        _ = try await store.putAll([Data("a1".utf8), Data("b1".utf8)], in: AllObjectsQuery())
        #expect(store.storedListAnswer.isStored)

        try store.setValue(Data("b2".utf8), forKey: "b", options: .init(timeToLive: .seconds(10)))
        clock.advance(by: .seconds(11))

        #expect(!store.storedListAnswer.isStored, "the answer went with its entry")
        await #expect(throws: StrataError.self) { try await store.getAll(StoredListAnswerQuery(AllObjectsQuery())) }
    }
}
