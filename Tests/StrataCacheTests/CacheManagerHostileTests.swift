import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataCache

/// A cache manager's store holding what it did not write the way it writes it, and a server's large bodies.
struct CacheManagerHostileTests {
    private func manager(in folder: TemporaryFolder, memoryMaximumSize: Int = 64 << 20) throws -> (
        CacheManager, Locked<[StrataError]>
    ) {
        let reports = Locked<[StrataError]>([])
        let manager = try CacheManager(
            configuration: .init(
                folder: folder.url.appendingPathComponent("beagle"),
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

    @Test func theDiskKeepsAtMostItsSizeAndALargerReferenceStaysInMemoryOnly() throws {
        // Given a manager whose disk holds 200 KiB of reference files, and three references of 60 KiB of data
        // (80 KiB as JSON) written in turn
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let reports = Locked<[StrataError]>([])
        let cache = try CacheManager(
            configuration: .init(
                folder: folder.url.appendingPathComponent("beagle"),
                diskMaximumSize: 200 << 10,
                clock: clock,
                diagnostics: { report in reports.withLock { $0.append(report) } }
            )
        )
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
