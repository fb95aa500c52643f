import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

/// A write main took whose cache write then fails: ``StrataError/Code/cacheSyncFailed`` carries main's value, as
/// `ChoosingAnOperation` promises, whichever put made it. Before, `putEntry`, `put(_:in:tags:operation:)` and
/// `putAllEntries` carried the entries they were given: `error.value(as: String.self)` was `nil`.
struct CacheSyncFailedPayloadTests {
    /// The puts that write entries.
    enum Put: CaseIterable, Sendable {
        case putEntry, putWithTags, putAllEntries
    }

    @Test(arguments: Put.allCases)
    func aFailedCacheWriteCarriesMainsValue(_ put: Put) async throws {
        // Given a cache whose writes fail (a full disk)
        let main = MemoryDataSource<String>()
        let fault = FaultInjectionPlugin(
            configuration: .init(errorRate: 1, error: StrataError(.io, "disk full"), methods: [.put, .putAll])
        )
        let repository = CacheRepository(main: main, cache: MemoryDataSource<String>().plugins([fault]))
        let entry = StoredEntry(value: "v", metadata: EntryMetadata())

        // When main takes a put and the cache write after it fails
        let error = await strataError {
            switch put {
            case .putEntry: _ = try await repository.putEntry(entry, in: KeyQuery("k"), operation: .mainSync)
            case .putWithTags: _ = try await repository.put("v", in: KeyQuery("k"), tags: ["t"], operation: .mainSync)
            case .putAllEntries:
                _ = try await repository.putAllEntries([entry], in: IdsQuery(["k"]), operation: .mainSync)
            }
        }

        // Then the error carries main's value
        #expect(error?.code == .cacheSyncFailed)
        #expect(main.value(forKey: "k") == "v")
        if put == .putAllEntries {
            #expect(error?.value(as: [String].self) == ["v"])
        } else {
            #expect(error?.value(as: String.self) == "v")
        }
    }
}
