import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataCache

/// A cache manager's store holding what it did not write the way it writes it, and a server's large bodies.
struct CacheManagerHostileTests {
    private func manager(
        in folder: TemporaryFolder,
        diskMaximumSize: Int = 150 << 20,
        memoryMaximumSize: Int = 64 << 20
    ) throws -> (CacheManager, Locked<[StrataError]>) {
        let reports = Locked<[StrataError]>([])
        let manager = try CacheManager(
            configuration: .init(
                folder: folder.url.appendingPathComponent("beagle"),
                diskMaximumSize: diskMaximumSize,
                memoryMaximumSize: memoryMaximumSize,
                clock: ManualClock(),
                diagnostics: { error in reports.withLock { $0.append(error) } }
            )
        )
        return (manager, reports)
    }

    /// The entry under A holds a reference identified by B (a copied or edited store): it is corrupt — reported,
    /// removed, a miss — and a revalidation of A cannot store A's body under B. Before: it was returned, and a 304
    /// renewed it under B.
    @Test func aReferenceStoredUnderAnotherIdentifierIsCorruptAndRemoved() throws {
        let folder = try TemporaryFolder()
        let (cache, reports) = try manager(in: folder)
        let forged = CacheReference(identifier: "B", data: Data("A's body".utf8), hash: "\"a\"", timeOfCreation: Date())
        try cache.persistentStore.setValue(forged, forKey: "A")

        #expect(cache.getReference(identifiedBy: "A") == nil)

        #expect(reports.withLock { $0.map(\.code) } == [.corrupt])
        #expect(try cache.persistentStore.value(forKey: "A") == nil)
        #expect(cache.memoryLayer.value(forKey: "A") == nil)
        #expect(cache.getReference(identifiedBy: "B") == nil)
    }

    /// References larger than the memory size are read from disk, not kept in memory; smaller ones are kept within
    /// it. Before: the memory layer had a count limit only, so a server's bodies of up to the HTTP client's limit
    /// each stayed in memory, 15 of them.
    @Test func theMemoryLayerKeepsAtMostItsSizeOfReferenceData() throws {
        let folder = try TemporaryFolder()
        let (cache, _) = try manager(in: folder, memoryMaximumSize: 100)
        let date = Date()
        let large = CacheReference(identifier: "large", data: Data(count: 200), hash: "\"l\"", timeOfCreation: date)
        cache.addToCache(large)
        for id in ["a", "b"] {
            cache.addToCache(CacheReference(identifier: id, data: Data(count: 60), hash: "\"x\"", timeOfCreation: date))
        }

        #expect(cache.memoryLayer.value(forKey: "large") == nil)
        #expect(cache.getReference(identifiedBy: "large")?.data.count == 200)
        #expect(cache.memoryLayer.totalCost <= 100)
        #expect(cache.memoryLayer.keysByRecency == ["b"])
        #expect(cache.getReference(identifiedBy: "a")?.data.count == 60)
    }

    @Test func aNegativeMemorySizeIsRefused() throws {
        let folder = try TemporaryFolder()
        #expect(throws: StrataError.self) { _ = try manager(in: folder, memoryMaximumSize: -1) }
    }

    @Test func aReferenceTooLargeForTheDiskLeavesNoOlderOneThere() throws {
        // Given a reference on disk and in memory, under a memory layer of 100 KiB and a disk of 200 KiB
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (cache, reports) = try manager(in: folder, diskMaximumSize: 200 << 10, memoryMaximumSize: 100 << 10)
        let clock = cache.configuration.clock
        let old = CacheReference(identifier: "x", data: Data("old".utf8), hash: "1", timeOfCreation: clock.now())
        cache.addToCache(old)

        // When a new version too large for either is added
        let large = Data(repeating: 7, count: 300 << 10)
        cache.addToCache(CacheReference(identifier: "x", data: large, hash: "2", timeOfCreation: clock.now()))

        // Then the old version is served from nowhere: the next fetch asks the server
        #expect(cache.getReference(identifiedBy: "x") == nil)
        #expect(try cache.persistentStore.value(forKey: "x") == nil)
        #expect(reports.withLock { $0.map(\.code) } == [.tooLarge])
    }

    @Test func theDiskKeepsAtMostItsSizeAndALargerReferenceStaysInMemoryOnly() throws {
        // Given a manager whose disk holds 200 KiB of reference files, and three references of 60 KiB of data
        // (80 KiB as JSON) written in turn
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (cache, reports) = try manager(in: folder, diskMaximumSize: 200 << 10)
        let clock = cache.configuration.clock
        func sized(_ id: String, _ bytes: Int) -> CacheReference {
            CacheReference(
                identifier: id,
                data: Data(repeating: 7, count: bytes),
                hash: id,
                timeOfCreation: clock.now()
            )
        }
        for id in ["a", "b", "c"] { cache.addToCache(sized(id, 60 << 10)) }

        // When a reference of 300 KiB is added
        cache.addToCache(sized("large", 300 << 10))

        // Then the disk kept the two most recent within its size, and the large one is served from memory only
        #expect(Set(cache.persistentStore.sortedKeys()) == ["b", "c"])
        #expect(try cache.persistentStore.value(forKey: "large") == nil)
        #expect(cache.getReference(identifiedBy: "large")?.data.count == 300 << 10)
        #expect(reports.withLock { $0.map(\.code) } == [.tooLarge])
    }
}
