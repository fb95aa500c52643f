import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// Two repositories over one cache store, each with a main of its own (a list screen's API and a detail screen's):
/// a write through one is a write to the other too. Before, each repository kept the write stamps of its own writes
/// only, and one's late write-back overwrote a value the other had acknowledged.
struct SharedCacheWriteBackTests {
    /// A main that answers "old" once `gate` opens.
    private struct GatedMain: GetDataSource {
        let gate: AsyncGate

        func get(_ query: any Query) async throws -> String {
            await gate.enter()
            return "old"
        }

        func getAll(_ query: any Query) async throws -> [String] { [try await get(query)] }
    }

    /// The ways a cache is given to a repository: the store itself, or wrapped.
    enum Wrapping: CaseIterable, Sendable {
        case none, validated, plugged, mapped, erased
    }

    @Test(.timeLimit(.minutes(1)), arguments: Wrapping.allCases)
    func aWriteThroughOneRepositoryIsNotUndoneByAnothersWriteBack(wrapping: Wrapping) async throws {
        switch wrapping {
        case .none: try await check { $0 }
        case .validated: try await check { $0.validated(by: .maxAge(.seconds(60))) }
        case .plugged: try await check { $0.plugins([]) }
        case .mapped: try await check { $0.mapped(to: { $0 }, from: { $0 }) }
        case .erased: try await check { AnyDataSource($0) }
        }
    }

    private func check<Cache: DataSource<String>>(
        _ wrap: (MemoryDataSource<String>) -> Cache
    ) async throws {
        // Given two repositories over one memory store; the first one's read missed and waits for its main
        let store = MemoryDataSource<String>()
        let gate = AsyncGate(isOpen: false)
        let reader = CacheRepository(main: GatedMain(gate: gate), cache: wrap(store))
        let writer = CacheRepository(main: MemoryDataSource<String>(), cache: wrap(store))
        #expect(reader.writeStamps === writer.writeStamps)
        let read = Task { try await reader.get(KeyQuery("1"), operation: .cacheSync) }
        await gate.waitForEntered(1)

        // When the second one writes the key, and then the first one's main answers
        _ = try await writer.put("new", in: KeyQuery("1"), operation: .mainSync)
        gate.open()

        // Then the first read returns its main's answer, and the store keeps the acknowledged write
        #expect(try await read.value == "old")
        #expect(try await store.get(KeyQuery("1")) == "new")
    }

    /// The store is the main of the writing repository (a memory cache over a disk store, as the README's recipe) and
    /// the cache of the reading one (the disk store over an API): a write through the first reaches the store as
    /// main, and the second's late write-back does not undo it.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aWriteToTheStoreAsMainIsNotUndoneByTheWriteBackOfARepositoryWhoseCacheItIs(validated: Bool) async throws {
        // Given a store read through one repository (its cache) whose main waits, and written through another (its
        // main, under a memory cache)
        let store = MemoryDataSource<String>()
        let gate = AsyncGate(isOpen: false)
        let reader = CacheRepository(main: GatedMain(gate: gate), cache: store)
        let read = Task { try await reader.get(KeyQuery("1"), operation: .cacheSync) }
        await gate.waitForEntered(1)

        // When the second writes the key through to the store, and then the first one's main answers
        if validated {
            let writer = CacheRepository(
                main: store.validated(by: .maxAge(.seconds(60))),
                cache: MemoryDataSource<String>()
            )
            _ = try await writer.put("new", in: KeyQuery("1"), operation: .mainSync)
        } else {
            let writer = CacheRepository(main: store, cache: MemoryDataSource<String>())
            _ = try await writer.put("new", in: KeyQuery("1"), operation: .mainSync)
        }
        gate.open()

        // Then the store keeps the acknowledged write
        #expect(try await read.value == "old")
        #expect(try await store.get(KeyQuery("1")) == "new")
    }

    /// One store as both main and cache of a repository: one table, its writes recorded once.
    @Test func aStoreThatIsBothMainAndCacheHasOneTable() {
        let store = MemoryDataSource<String>()
        let repository = CacheRepository(main: store, cache: store)
        #expect(repository.mainWriteStamps == nil)
        #expect(repository.writeStamps === store.writeStamps)
    }

    @Test func aCacheOfAnotherKindKeepsTheTableOfItsRepositoryAndItsCopies() {
        let main = MemoryDataSource<String>()
        let cache = ScriptedDataSource<String>()
        let repository = CacheRepository(main: main, cache: cache)
        let copy = repository
        #expect(copy.writeStamps === repository.writeStamps)
        #expect(CacheRepository(main: main, cache: cache).writeStamps !== repository.writeStamps)
    }
}
