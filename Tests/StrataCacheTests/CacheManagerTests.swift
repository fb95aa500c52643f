import Foundation
import Strata
import StrataTestSupport
import StrataTesting
import Testing

@testable import StrataCache

struct CacheManagerTests {
    private func reference(_ id: String, maxAge: Int? = nil, at date: Date) -> CacheReference {
        CacheReference(identifier: id, data: Data(id.utf8), hash: "\"\(id)\"", maxAge: maxAge, timeOfCreation: date)
    }

    @Test func aReferenceIsValidForTheDefault300SecondsAndNotAtTheBoundary() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = try CacheManager(folder: folder.url.appendingPathComponent("beagle"), clock: clock)
        let stored = reference("screen", at: clock.now())
        cache.addToCache(stored)

        clock.advance(by: .milliseconds(299_999))
        #expect(cache.isValid(reference: stored))
        clock.advance(by: .milliseconds(1))
        #expect(!cache.isValid(reference: stored))
        #expect(cache.getReference(identifiedBy: "screen") == stored)  // stale references are still returned
    }

    @Test func aReferencesOwnMaxAgeWinsOverTheDefault() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = try CacheManager(
            configuration: .init(folder: folder.url.appendingPathComponent("beagle"), cacheMaxAge: 5, clock: clock)
        )
        let long = reference("long", maxAge: 60, at: clock.now())
        let short = reference("short", at: clock.now())

        clock.advance(by: .seconds(5))
        #expect(cache.isValid(reference: long))
        #expect(!cache.isValid(reference: short))
        clock.advance(by: .seconds(55))
        #expect(!cache.isValid(reference: long))
    }

    /// A reference created ten years from now (written while the clock was ahead, or edited by hand) is not valid:
    /// it was valid for ten years and five minutes.
    @Test func aReferenceCreatedInTheFutureIsNotValid() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = try CacheManager(folder: folder.url.appendingPathComponent("beagle"), clock: clock)
        let ahead = reference("screen", maxAge: 60, at: clock.now().addingTimeInterval(10 * 365 * 86_400))

        #expect(!cache.isValid(reference: ahead))
        #expect(cache.isValid(reference: reference("screen", maxAge: 60, at: clock.now())))
    }

    @Test func theDefaultsAreBeaglesConfig() throws {
        let configuration = CacheManager.Configuration(folder: URL(fileURLWithPath: "/unused"))
        #expect(configuration.diskMaximumCapacity == 150)
        #expect(configuration.diskMaximumSize == 150 << 20)
        #expect(configuration.memoryMaximumCapacity == 15)
        #expect(configuration.cacheMaxAge == 300)
    }

    @Test func thePersistentStoreAndTheMemoryLayerKeepTheLeastRecentlyUsedWithinTheirCaps() throws {
        // Given 3 references on disk, 2 in memory
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = try CacheManager(
            configuration: .init(
                folder: folder.url.appendingPathComponent("beagle"),
                diskMaximumCapacity: 3,
                memoryMaximumCapacity: 2,
                clock: clock
            )
        )
        for id in ["a", "b", "c"] { cache.addToCache(reference(id, at: clock.now())) }

        // When a (only on disk now) is read, then d is added
        #expect(cache.memoryLayer.value(forKey: "a") == nil)
        #expect(cache.getReference(identifiedBy: "a")?.identifier == "a")
        cache.addToCache(reference("d", at: clock.now()))

        // Then b, the least recently used on disk, is gone
        #expect(cache.persistentStore.count == 3)
        #expect(Set(cache.persistentStore.sortedKeys()) == ["a", "c", "d"])
        #expect(cache.memoryLayer.count == 2)
        #expect(cache.memoryLayer.keysByRecency == ["d", "a"])
        #expect(cache.getReference(identifiedBy: "b") == nil)
    }

    @Test func aReferenceReadFromMemoryIsJustUsedOnDiskAndIsNotEvicted() throws {
        // Given 3 references on disk and in memory, "a" the least recently written
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = try CacheManager(
            configuration: .init(
                folder: folder.url.appendingPathComponent("beagle"),
                diskMaximumCapacity: 3,
                memoryMaximumCapacity: 3,
                clock: clock
            )
        )
        for id in ["a", "b", "c"] { cache.addToCache(reference(id, at: clock.now())) }

        // When "a" is read often, every read answered by memory, then "d" is added
        for _ in 0..<5 { #expect(cache.getReference(identifiedBy: "a")?.identifier == "a") }
        cache.addToCache(reference("d", at: clock.now()))

        // Then "b", not the often-read "a", is evicted from disk
        #expect(Set(cache.persistentStore.sortedKeys()) == ["a", "c", "d"])
        #expect(cache.persistentStore.keysByRecency.first == "d")
    }

    /// A read answered by memory on a full disk returns its reference and reports nothing: its recency line is best
    /// effort, as a disk read's is. (Before, every such read sent an `io` error to the diagnostics.)
    @Test(.enabled(if: TemporaryMount.isAvailable, "needs root and tmpfs (mount(2))"))
    func aMemoryHitOnAFullDiskReportsNothing() throws {
        // Given a reference in memory and on a full disk
        let mount = try TemporaryMount(size: "1m")
        defer { mount.unmount() }
        let errors = ReportedErrors()
        let clock = ManualClock()
        let cache = try CacheManager(
            configuration: .init(
                folder: mount.url.appendingPathComponent("beagle"),
                clock: clock,
                diagnostics: { errors.append($0) }
            )
        )
        cache.addToCache(reference("a", at: clock.now()))
        let filler = mount.url.appendingPathComponent("filler")
        #expect(FileManager.default.createFile(atPath: filler.path, contents: nil))
        let handle = try FileHandle(forWritingTo: filler)
        while (try? handle.write(contentsOf: Data(count: 4_096))) != nil {}
        try? handle.close()

        // When it is read more times than the index's last page has room for lines
        for _ in 0..<1_000 { #expect(cache.getReference(identifiedBy: "a")?.identifier == "a") }

        // Then nothing was reported
        let first = errors.all.first.map { String(describing: $0) } ?? ""
        #expect(errors.all.isEmpty, "\(errors.all.count) reports, the first: \(first)")
    }

    @Test func aRestartKeepsTheReferencesAndTheirMaxAge() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let location = folder.url.appendingPathComponent("beagle")
        let stored = reference("screen", maxAge: 42, at: clock.now())
        do {
            let cache = try CacheManager(folder: location, clock: clock)
            cache.addToCache(stored)
        }

        let reopened = try CacheManager(folder: location, clock: clock)

        let read = try #require(reopened.getReference(identifiedBy: "screen"))
        #expect(read == stored)
        #expect(read.maxAge == 42)
        clock.advance(by: .seconds(42))
        #expect(!reopened.isValid(reference: read))
    }

    @Test func clearRemovesEveryReference() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = ManualClock()
        let cache = try CacheManager(folder: folder.url.appendingPathComponent("beagle"), clock: clock)
        cache.addToCache(reference("a", at: clock.now()))

        cache.clear()

        #expect(cache.getReference(identifiedBy: "a") == nil)
        #expect(cache.persistentStore.count == 0)
        #expect(cache.memoryLayer.count == 0)
    }

    @Test func capacitiesBelowOneAreRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let error = #expect(throws: StrataError.self) {
            _ = try CacheManager(configuration: .init(folder: folder.url, diskMaximumCapacity: 0))
        }
        #expect(error?.code == .invalidArgument)
        let sizeError = #expect(throws: StrataError.self) {
            _ = try CacheManager(configuration: .init(folder: folder.url, diskMaximumSize: 0))
        }
        #expect(sizeError?.code == .invalidArgument)
        // A negative default validity revalidated every reference without one of its own, silently
        let ageError = #expect(throws: StrataError.self) {
            _ = try CacheManager(configuration: .init(folder: folder.url, cacheMaxAge: -1))
        }
        #expect(ageError?.code == .invalidArgument)
    }
}

/// A `304` whose freshness lies beyond any `Int` of seconds renews a reference without trapping.
@Test func aRenewalFarInTheFutureSaturatesMaxAge() {
    let created = Date(timeIntervalSince1970: 1_000)
    let reference = CacheReference(identifier: "a", data: Data(), hash: "h", timeOfCreation: created)
    let far = EntryMetadata(storedAt: created, freshUntil: created.addingTimeInterval(1e30))
    #expect(reference.renewed(by: far).maxAge == .max)
    let now = EntryMetadata(storedAt: created, freshUntil: created.addingTimeInterval(60))
    #expect(reference.renewed(by: now).maxAge == 60)
}
