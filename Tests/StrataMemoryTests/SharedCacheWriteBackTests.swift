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
        case none, validated, plugged, mapped
    }

    @Test(.timeLimit(.minutes(1)), arguments: Wrapping.allCases)
    func aWriteThroughOneRepositoryIsNotUndoneByAnothersWriteBack(wrapping: Wrapping) async throws {
        switch wrapping {
        case .none: try await check { $0 }
        case .validated: try await check { $0.validated(by: .maxAge(.seconds(60))) }
        case .plugged: try await check { $0.plugins([]) }
        case .mapped: try await check { $0.mapped(to: { $0 }, from: { $0 }) }
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

    @Test func aCacheOfAnotherKindKeepsTheTableOfItsRepositoryAndItsCopies() {
        let main = MemoryDataSource<String>()
        let cache = ScriptedDataSource<String>()
        let repository = CacheRepository(main: main, cache: cache)
        let copy = repository
        #expect(copy.writeStamps === repository.writeStamps)
        #expect(CacheRepository(main: main, cache: cache).writeStamps !== repository.writeStamps)
    }
}
