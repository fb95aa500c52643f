import Foundation
import Strata
import StrataTesting
import Testing

/// Three tiers from two-source repositories: memory over (disk over network), the inner one as a data source.
struct LayeringTests {
    let clock = ManualClock()
    let network = EntryStore(origin: .network)
    let disk: EntryStore
    let memory = EntryStore(origin: .memory)

    init(disk contents: [String: StoredEntry<String>] = [:]) {
        disk = EntryStore(contents, origin: .file)
    }

    var inner: CacheRepository<EntryStore, EntryStore> { CacheRepository(main: network, cache: disk) }

    func tiers(
        _ operation: any RepositoryOperation = CacheSyncOperation()
    ) -> CacheRepository<
        CacheRepositorySource<EntryStore, EntryStore>, ValidatedDataSource<EntryStore, ClosureValidator<String>>
    > {
        CacheRepository(
            main: inner.asDataSource(operation: operation),
            cache: memory.validated(by: unexpired(on: clock))
        )
    }

    func entry(_ value: String, eTag: String? = nil, expiresIn seconds: TimeInterval) -> StoredEntry<String> {
        StoredEntry(
            value: value,
            metadata: EntryMetadata(
                storedAt: clock.now(),
                expiresAt: clock.now().addingTimeInterval(seconds),
                eTag: eTag
            )
        )
    }

    @Test func aDiskHitIsCopiedUpIntoMemoryWithItsExpiry() async throws {
        let onDisk = entry("v", expiresIn: 100)
        let layers = LayeringTests(disk: ["1": onDisk])
        #expect(try await layers.tiers().get(KeyQuery("1"), operation: .cacheSync) == "v")
        #expect(layers.memory.entry("1") == onDisk)
        #expect(layers.memory.entry("1")?.expiresAt == onDisk.expiresAt)
        #expect(layers.network.writes.isEmpty)
        // The copy expires with its original, not 100 seconds after it was copied.
        layers.clock.advance(by: .seconds(101))
        let error = await #expect(throws: StrataError.self) {
            try await layers.tiers().get(KeyQuery("1"), operation: .cache)
        }
        #expect(error?.code == .notValid)
    }

    @Test func aNetworkValueReachesBothTiersWithItsMetadata() async throws {
        let fetched = entry("v", eTag: "\"a\"", expiresIn: 60)
        _ = try await network.putEntry(fetched, in: KeyQuery("1"))
        #expect(try await tiers().get(KeyQuery("1")) == "v")
        #expect(disk.entry("1") == fetched)
        #expect(memory.entry("1") == fetched)
    }

    @Test func aStaleMemoryEntryIsRenewedFromTheDiskTierWhenItsValidatorsMatch() async throws {
        _ = try await memory.putEntry(entry("v", eTag: "\"a\"", expiresIn: 10), in: KeyQuery("1"))
        let onDisk = entry("v", eTag: "\"a\"", expiresIn: 100)
        _ = try await disk.putEntry(onDisk, in: KeyQuery("1"))
        clock.advance(by: .seconds(11))
        #expect(try await tiers().get(KeyQuery("1"), operation: .cacheSync) == "v")
        #expect(memory.writes == ["putEntry 1", "renew 1"])
        #expect(memory.entry("1")?.metadata == onDisk.metadata)
    }

    @Test func writesAndDeletesGoThroughEveryTier() async throws {
        let repository = tiers(DefaultOperation())
        _ = try await repository.put("v", in: KeyQuery("1"), operation: .mainSync)
        #expect(network.writes == ["put 1"])
        #expect(disk.writes == ["put 1"])
        #expect(memory.writes == ["put 1"])
        try await repository.delete(KeyQuery("1"), operation: .mainSync)
        #expect([network, disk, memory].allSatisfy { $0.entry("1") == nil })
    }

    @Test func theOriginIsTheFirstSourceOfTheReadPlan() {
        #expect(inner.asDataSource(operation: .cacheSync).origin == .file)
        #expect(inner.asDataSource(operation: .main).origin == .network)
        #expect(inner.asDataSource().origin == .file)
    }

    @Test func theSourceAnnouncesTheInnerRepositorysWrites() async throws {
        let source = inner.asDataSource()
        let changes = source.changes(forKey: "1")
        _ = try await source.put("v", in: KeyQuery("1"))
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == .put(key: "1"))
    }
}
