import Foundation
import Strata
import StrataTesting
import Testing

/// Copies keep their metadata; a stale entry with validators is revalidated with main.
struct MetadataPlanTests {
    let clock = ManualClock()
    var t0: Date { clock.now() }

    func metadata(eTag: String?, expiresIn seconds: TimeInterval) -> EntryMetadata {
        EntryMetadata(storedAt: t0, expiresAt: t0.addingTimeInterval(seconds), eTag: eTag)
    }

    @Test func aValueCopiedIntoTheCacheKeepsMainsStoredDateAndExpiry() async throws {
        let original = StoredEntry(value: "v", metadata: metadata(eTag: "\"a\"", expiresIn: 100))
        let main = EntryStore(["1": original, "2": original])
        let cache = EntryStore()
        let repository = CacheRepository(main: main, cache: cache)
        #expect(try await repository.get(KeyQuery("1"), operation: .cacheSync) == "v")
        _ = try await repository.getAll(IdsQuery(["2"]), operation: .mainSync)
        #expect(cache.entry("1") == original)
        #expect(cache.entry("2") == original)
        #expect(cache.writes == ["putEntry 1", "putEntry 2"])
    }

    /// A probe as main (*not modified* when the entity tag matches), a probe behind a validator as the cache, both
    /// behind spies.
    func revalidating(cached: StoredEntry<String>, main: StoredEntry<String>) -> (
        repository: CacheRepository<
            SpyDataSource<CapabilityProbe>,
            SpyDataSource<ValidatedDataSource<CapabilityProbe, ClosureValidator<String>>>
        >,
        cache: CapabilityProbe,
        journal: CallJournal
    ) {
        let journal = CallJournal()
        let mainProbe = CapabilityProbe()
        mainProbe.store(main, forKey: "1")
        let cacheProbe = CapabilityProbe()
        cacheProbe.store(cached, forKey: "1")
        let repository = CacheRepository(
            main: SpyDataSource(name: "main", wrapping: mainProbe, journal: journal),
            cache: SpyDataSource(
                name: "cache",
                wrapping: cacheProbe.validated(by: unexpired(on: clock)),
                journal: journal
            )
        )
        return (repository, cacheProbe, journal)
    }

    @Test func notModifiedRenewsTheCachedEntryWithoutRewritingIt() async throws {
        let renewed = metadata(eTag: "\"a\"", expiresIn: 300)
        let setup = revalidating(
            cached: StoredEntry(value: "v1", metadata: metadata(eTag: "\"a\"", expiresIn: 60)),
            main: StoredEntry(value: "v1", metadata: renewed)
        )
        clock.advance(by: .seconds(61))
        #expect(try await setup.repository.get(KeyQuery("1"), operation: .cacheSync) == "v1")
        // Main was asked conditionally (recorded as a get), and the cache was renewed, not written.
        #expect(setup.journal.trace == ["cache.get", "main.get"])
        #expect(setup.cache.renewedKeys == ["1"])
        #expect(setup.cache.storedEntry(forKey: "1") == StoredEntry(value: "v1", metadata: renewed))
        // The renewed entry is valid again: the next read is a hit.
        #expect(try await setup.repository.get(KeyQuery("1"), operation: .cacheSync) == "v1")
        #expect(setup.journal.trace == ["cache.get", "main.get", "cache.get"])
    }

    @Test func modifiedStoresMainsEntryAsUsual() async throws {
        let fresh = StoredEntry(value: "v2", metadata: metadata(eTag: "\"b\"", expiresIn: 300))
        let setup = revalidating(
            cached: StoredEntry(value: "v1", metadata: metadata(eTag: "\"a\"", expiresIn: 60)),
            main: fresh
        )
        clock.advance(by: .seconds(61))
        #expect(try await setup.repository.get(KeyQuery("1"), operation: .cacheSync) == "v2")
        #expect(setup.journal.trace == ["cache.get", "main.get", "cache.put"])
        #expect(setup.cache.renewedKeys.isEmpty)
        #expect(setup.cache.storedEntry(forKey: "1") == fresh)
    }

    @Test func aCacheThatCannotRenewGetsTheStaleValueWithTheRenewedMetadata() async throws {
        let renewed = metadata(eTag: "\"a\"", expiresIn: 300)
        let main = CapabilityProbe()
        main.store(StoredEntry(value: "v1", metadata: renewed), forKey: "1")
        let cache = EntryStore(
            ["1": StoredEntry(value: "v1", metadata: metadata(eTag: "\"a\"", expiresIn: 60))],
            renews: false
        )
        let repository = CacheRepository(main: main, cache: cache.validated(by: unexpired(on: clock)))
        clock.advance(by: .seconds(61))
        #expect(try await repository.get(KeyQuery("1"), operation: .cacheSync) == "v1")
        #expect(cache.writes == ["putEntry 1"])
        #expect(cache.entry("1") == StoredEntry(value: "v1", metadata: renewed))
    }

    @Test func aStaleEntryWithoutValidatorsIsReadAgainInFull() async throws {
        let setup = revalidating(
            cached: StoredEntry(value: "v1", metadata: metadata(eTag: nil, expiresIn: 60)),
            main: StoredEntry(value: "v1", metadata: metadata(eTag: nil, expiresIn: 300))
        )
        clock.advance(by: .seconds(61))
        #expect(try await setup.repository.get(KeyQuery("1"), operation: .cacheSync) == "v1")
        #expect(setup.journal.trace == ["cache.get", "main.get", "cache.put"])
        #expect(setup.cache.renewedKeys.isEmpty)
    }

    @Test func aStreamShowsTheStaleValueThenMainsConfirmation() async throws {
        let setup = revalidating(
            cached: StoredEntry(value: "v1", metadata: metadata(eTag: "\"a\"", expiresIn: 60)),
            main: StoredEntry(value: "v1", metadata: metadata(eTag: "\"a\"", expiresIn: 300))
        )
        clock.advance(by: .seconds(61))
        let observation = Observation(
            setup.repository.stream(KeyQuery("1"), operation: .cacheSync, bufferingNewest: 64)
        )
        defer { observation.task.cancel() }
        let trace = try await observation.wait(forCount: 3)
        #expect(trace == ["loading(probe)", "value(v1, probe, stale)", "value(v1, probe)"])
        #expect(setup.cache.renewedKeys == ["1"])
    }

    @Test func aListReadOnAnEmptyCacheReachesMain() async throws {
        let main = EntryStore([
            "1": StoredEntry(value: "one", storedAt: t0), "2": StoredEntry(value: "two", storedAt: t0),
        ])
        let journal = CallJournal()
        let repository = CacheRepository(
            main: SpyDataSource(name: "main", wrapping: main, journal: journal),
            cache: SpyDataSource(name: "cache", wrapping: EntryStore(), journal: journal)
        )
        #expect(try await repository.getAll(IdsQuery(["1", "2"]), operation: .cacheSync) == ["one", "two"])
        // The list misses, so the cache is asked for each id before main is asked for the missing ones
        let firstRead = ["cache.getAll", "cache.getAll", "cache.getAll", "main.getAll", "cache.putAll"]
        #expect(journal.trace == firstRead)
        #expect(try await repository.getAll(IdsQuery(["1", "2"]), operation: .default) == ["one", "two"])
        #expect(journal.trace == firstRead + ["cache.getAll"])
    }
}
