import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

/// A mapped write whose wrapped source or repository took the value, and whose answer then does not convert: the
/// error says the write may have taken effect. Before, it said nothing: a repository over it kept the cache's older
/// copy, served as fresh, and a caller retrying applied the write twice.
struct MappedWriteAnswerTests {
    /// What a mapper throws.
    private struct NotConvertible: Error {}

    /// Reads numbers kept as text.
    private static let toNumber = ClosureMapper<String, Int> { text in
        guard let number = Int(text) else { throw NotConvertible() }
        return number
    }

    /// Keeps numbers as text; 13 as "thirteen", which does not read back as a number (a server whose answer the app
    /// cannot decode); a negative number not at all.
    private static let toText = ClosureMapper<Int, String> { number in
        guard number >= 0 else { throw NotConvertible() }
        return number == 13 ? "thirteen" : String(number)
    }

    /// The numbers of a store of text.
    private static func numbers(
        _ store: MemoryDataSource<String>
    ) -> MappedDataSource<MemoryDataSource<String>, String, Int> {
        store.mapped(to: toNumber, from: toText)
    }

    /// The writes of a mapped source.
    enum Write: CaseIterable, Sendable {
        case put, putAll, putEntry, putAllEntries
    }

    @Test(arguments: Write.allCases)
    func aMappedSourcesWriteWhoseAnswerDoesNotConvertMayHaveTakenEffect(_ write: Write) async throws {
        let store = MemoryDataSource<String>()
        let numbers = Self.numbers(store)

        let error = await strataError {
            switch write {
            case .put: _ = try await numbers.put(13, in: KeyQuery("k"))
            case .putAll: _ = try await numbers.putAll([13], in: IdsQuery(["k"]))
            case .putEntry:
                _ = try await numbers.putEntry(StoredEntry(value: 13, metadata: EntryMetadata()), in: KeyQuery("k"))
            case .putAllEntries:
                _ = try await numbers.putAllEntries(
                    [StoredEntry(value: 13, metadata: EntryMetadata())],
                    in: IdsQuery(["k"])
                )
            }
        }

        #expect(error?.code == .dataSerialization)
        #expect(error?.mayHaveTakenEffect == true)
        #expect(store.value(forKey: "k") == "thirteen")
    }

    @Test func aValueThatDoesNotConvertBeforeTheWriteSurelyFailed() async throws {
        let store = MemoryDataSource<String>()

        let error = await strataError { _ = try await Self.numbers(store).put(-1, in: KeyQuery("k")) }

        #expect(error?.code == .dataSerialization)
        #expect(error?.mayHaveTakenEffect == false)
        #expect(store.value(forKey: "k") == nil)
    }

    @Test func aRepositoryOverAMappedMainDropsItsOlderCopy() async throws {
        // Given 7 in main and in the cache
        let main = MemoryDataSource<String>()
        main.setValue("7", forKey: "k")
        let cache = MemoryDataSource<Int>()
        cache.setValue(7, forKey: "k")
        let repository = CacheRepository(main: Self.numbers(main), cache: cache)

        // When 13 is written, which main takes and answers in a form that does not convert
        let error = await strataError { _ = try await repository.put(13, in: KeyQuery("k"), operation: .mainSync) }

        // Then the call may have taken effect, and the cache no longer serves 7
        #expect(error?.mayHaveTakenEffect == true)
        #expect(main.value(forKey: "k") == "thirteen")
        #expect(cache.value(forKey: "k") == nil)
    }

    @Test(arguments: [false, true])
    func aMappedRepositorysWriteWhoseAnswerDoesNotConvertMayHaveTakenEffect(isList: Bool) async throws {
        let store = MemoryDataSource<String>()
        let base = CacheRepository(main: store, cache: MemoryDataSource<String>())
        let numbers = base.mapped(to: Self.toNumber, from: Self.toText)

        let error = await strataError {
            if isList {
                _ = try await numbers.putAll([13], in: IdsQuery(["k"]), operation: .mainSync)
            } else {
                _ = try await numbers.put(13, in: KeyQuery("k"), operation: .mainSync)
            }
        }

        #expect(error?.code == .dataSerialization)
        #expect(error?.mayHaveTakenEffect == true)
        #expect(store.value(forKey: "k") == "thirteen")
    }
}
