import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

/// A conditional read's *not modified* renews the version it confirmed, never an entry another read wrote back
/// meanwhile.
struct ConditionalRenewalTests {
    /// Main: version 2 of "k" to a plain read; *not modified* (for version 1) to a conditional read, held at `gate`.
    private final class Versions: GetDataSource {
        let gate = AsyncGate(isOpen: false)

        func get(_ query: any Query) async throws -> String { try await getEntry(query).value }

        func getEntry(_ query: any Query) async throws -> StoredEntry<String> {
            StoredEntry(value: "v2", metadata: EntryMetadata(eTag: "\"v2\""))
        }

        func getIfModified(_ query: any Query, since metadata: EntryMetadata) async throws -> ConditionalRead<String> {
            await gate.enter()
            return .notModified(EntryMetadata(eTag: "\"v1\""))
        }

        func getAll(_ query: any Query) async throws -> [String] { [] }
    }

    /// A repository over `Versions` whose memory cache holds version 1 of "k", stale.
    private static func staleVersionOne() async throws -> (
        repository: CacheRepository<Versions, some GetDataSource<String> & PutDataSource<String>>,
        main: Versions,
        store: MemoryDataSource<String>
    ) {
        let clock = ManualClock()
        let main = Versions()
        let store = MemoryDataSource<String>(configuration: .init(clock: clock))
        let repository = CacheRepository(main: main, cache: store.validated(by: .maxAge(.seconds(60), clock: clock)))
        _ = try await store.putEntry(
            StoredEntry(value: "v1", metadata: EntryMetadata(eTag: "\"v1\"")),
            in: KeyQuery("k")
        )
        clock.advance(by: .seconds(120))
        return (repository, main, store)
    }

    /// Before, a reader's 304 for version 1 that came after another reader wrote version 2 back renewed version 2
    /// with version 1's validators: the cache served version 2 as version 1, fresh.
    @Test func aNotModifiedAfterAnotherVersionWasWrittenBackRenewsNothing() async throws {
        let (repository, main, store) = try await Self.staleVersionOne()

        // When a reader's conditional request is on its way, and another reader writes version 2 back meanwhile
        let revalidating = Task { try await repository.get(KeyQuery("k"), operation: .cacheSync) }
        await main.gate.waitForEntered(1)
        #expect(try await repository.get(KeyQuery("k"), operation: .mainSync) == "v2")
        main.gate.open()

        // Then the first reader has its confirmed version, and the cache keeps version 2 with its own validators
        #expect(try await revalidating.value == "v1")
        let cached = try await store.getEntry(KeyQuery("k"))
        #expect(cached.value == "v2")
        #expect(cached.metadata.eTag == "\"v2\"")
    }

    /// A 304 for the version the cache still holds renews it, as always.
    @Test func aNotModifiedForTheCachedVersionRenewsIt() async throws {
        let (repository, main, _) = try await Self.staleVersionOne()
        main.gate.open()

        #expect(try await repository.get(KeyQuery("k"), operation: .cacheSync) == "v1")

        #expect(try await repository.get(KeyQuery("k"), operation: .cache) == "v1", "renewed: fresh again")
    }
}
