import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

/// A cache of an app's own that answers a list of keys with the values it holds, leaving the others out, in place of
/// *not found* (what the conformance suite now refuses): a `.cacheSync` list read asks main for the keys left out.
/// Before, the shorter answer was taken for the whole list: values came back in the wrong places, fewer than asked,
/// and main was never asked; for one key, an empty answer was neither a hit nor a miss.
struct ShortCacheListAnswerTests {
    /// A memory store that answers a list of keys with the entries it holds.
    private struct HeldOnlyCache: DataSource {
        let store = MemoryDataSource<String>()

        func get(_ query: any Query) async throws -> String { try await store.get(query) }
        func getAll(_ query: any Query) async throws -> [String] { try await getAllEntries(query).map(\.value) }

        func getAllEntries(_ query: any Query) async throws -> [StoredEntry<String>] {
            guard let keyed = query as? any MultiKeyedQuery else { return try await store.getAllEntries(query) }
            var held: [StoredEntry<String>] = []
            for key in keyed.keys {
                if let entry = try? await store.getEntry(KeyQuery(key)) { held.append(entry) }
            }
            return held
        }

        func put(_ value: String, in query: any Query) async throws -> String { try await store.put(value, in: query) }
        func putAll(_ values: [String], in query: any Query) async throws -> [String] {
            try await store.putAll(values, in: query)
        }
        func putEntry(_ entry: StoredEntry<String>, in query: any Query) async throws -> String {
            try await store.putEntry(entry, in: query)
        }
        func delete(_ query: any Query) async throws { try await store.delete(query) }
    }

    /// Before, the conformance suite never read a list with a key the source lacked: this cache passed it.
    @Test func theConformanceSuiteRefusesAShorterListAnswer() async throws {
        let suite = DataSourceConformance(makeSource: { HeldOnlyCache() }, makeValue: { "v\($0)" })

        let failure = await #expect(throws: ConformanceFailure.self) { try await suite.run() }

        #expect(failure?.rule == "an IdsQuery with a key the source lacks is notFound")
    }

    @Test func aShorterCacheAnswerAsksMainForTheKeysItLeftOut() async throws {
        // Given a cache holding id 2 of ids 1, 2 and 3, which main holds
        let main = MemoryDataSource<String>()
        for id in 1...3 { main.setValue("main \(id)", forKey: "\(id)") }
        let cache = HeldOnlyCache()
        cache.store.setValue("cached 2", forKey: "2")
        let repository = CacheRepository(main: main, cache: cache)

        // When they are read, and then id 4 alone, which main holds too
        let values = try await repository.getAll(IdsQuery([1, 2, 3]), operation: .cacheSync)
        main.setValue("main 4", forKey: "4")
        let four = try await repository.getAll(IdsQuery([4]), operation: .cacheSync)

        // Then each value is in its place, main's for the keys the cache left out, and those are cached now
        #expect(values == ["main 1", "cached 2", "main 3"])
        #expect(four == ["main 4"])
        #expect(cache.store.value(forKey: "1") == "main 1")
        #expect(cache.store.value(forKey: "4") == "main 4")
    }
}
