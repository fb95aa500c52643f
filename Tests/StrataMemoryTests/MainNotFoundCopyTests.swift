import Strata
import StrataMemory
import StrataTestSupport
import StrataTesting
import Testing

/// Main answering *not found* for a key the cache holds a copy of: the copy goes (in the read's write-back turn),
/// so that no later read serves a value main no longer has.
struct MainNotFoundCopyTests {
    private static let key = IdQuery("42")

    /// Before, a `.mainSync` get ("skips the cache and refreshes it") that main answered *not found* left the cache's
    /// copy, which the next `.cacheSync` read served; and the cache's list answer still listed it.
    @Test func aMainSyncReadMainAnswersNotFoundDropsTheCopyAndTheListAnswer() async throws {
        let main = ScriptedDataSource(["1": "one", "42": "old"])
        let cache = MemoryDataSource<String>(configuration: .init(key: { $0 == "one" ? "1" : "42" }))
        let repository = CacheRepository(main: main, cache: cache)
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .default).count == 2)
        try await main.delete(Self.key)

        await #expect(throws: StrataError.self) { _ = try await repository.get(Self.key, operation: .mainSync) }

        #expect(cache.value(forKey: "42") == nil)
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .default) == ["one"])
        #expect(main.callCount(.getAll) == 2, "the list answer went with the copy")
    }

    /// Before, a stale-while-revalidate refresh that main answered *not found* left the stale copy, which every read
    /// in the window went on serving.
    @Test func aRefreshMainAnswersNotFoundDropsTheStaleCopy() async throws {
        let clock = ManualClock()
        let main = ScriptedDataSource(["42": "old"])
        let store = MemoryDataSource<String>(configuration: .init(clock: clock))
        let repository = CacheRepository(main: main, cache: store.validated(by: .maxAge(.seconds(300), clock: clock)))
        let operation = CacheSyncOperation.cacheSync(staleWhileRevalidate: .seconds(60), clock: clock)
        _ = try await repository.get(Self.key, operation: operation)
        try await main.delete(Self.key)
        clock.advance(by: .seconds(330))

        #expect(try await repository.get(Self.key, operation: operation) == "old", "stale, at once")
        await repository.waitForBackgroundRefreshes()

        #expect(store.value(forKey: "42") == nil)
    }

    /// Before, a stale entry main answered *not found* for was left, and served again by a fallback.
    @Test func aStaleReadMainAnswersNotFoundDropsTheStaleCopy() async throws {
        let clock = ManualClock()
        let main = ScriptedDataSource(["42": "old"])
        let store = MemoryDataSource<String>(configuration: .init(clock: clock))
        let repository = CacheRepository(main: main, cache: store.validated(by: .maxAge(.seconds(300), clock: clock)))
        _ = try await repository.get(Self.key, operation: .cacheSync)
        try await main.delete(Self.key)
        clock.advance(by: .seconds(330))

        await #expect(throws: StrataError.self) { _ = try await repository.get(Self.key, operation: .cacheSync) }

        #expect(store.value(forKey: "42") == nil)
    }

    /// A fallback that accepts *not found* serves the stale copy after main's 404, so the copy stays. Before, the first
    /// such read served it and dropped it, and every later read threw.
    @Test func aFallbackThatServesStaleOnNotFoundKeepsTheStaleCopy() async throws {
        let clock = ManualClock()
        let main = ScriptedDataSource(["42": "old"])
        let store = MemoryDataSource<String>(configuration: .init(clock: clock))
        let repository = CacheRepository(main: main, cache: store.validated(by: .maxAge(.seconds(300), clock: clock)))
        let operation = CacheSyncOperation.cacheSync(fallback: { _ in true })
        _ = try await repository.get(Self.key, operation: operation)
        try await main.delete(Self.key)
        clock.advance(by: .seconds(330))

        #expect(try await repository.get(Self.key, operation: operation) == "old")
        #expect(try await repository.get(Self.key, operation: operation) == "old")
        #expect(main.callCount(.get) == 3)
    }

    /// A value that knows its id, so a repository can tell which ids main did not answer.
    private struct Member: Identifiable, Hashable, Sendable {
        let id: Int
    }

    /// How main tells a list read it lacks id 2: a shorter answer, or a partial *not found* (a repository as main).
    enum PartialAnswer: CaseIterable, Sendable {
        case shorter, partialError
    }

    /// Before, a `.cacheSync` list read of stale ids 1 and 2 that main answered for 1 only threw *not found* for 2
    /// and left its stale copy, which `.cacheIgnoringValidation` (or a window, or an offline fallback) served later.
    @Test(arguments: PartialAnswer.allCases)
    func aStaleListReadMainAnswersInPartDropsTheCopiesMainLacks(_ answer: PartialAnswer) async throws {
        // Given ids 1 and 2 cached, then stale, and main that no longer has 2
        let clock = ManualClock()
        let main = ScriptedDataSource(["1": Member(id: 1), "2": Member(id: 2)])
        let store = MemoryDataSource<Member>(configuration: .init(clock: clock))
        let repository = CacheRepository(main: main, cache: store.validated(by: .maxAge(.seconds(300), clock: clock)))
        _ = try await repository.getAll(IdsQuery([1, 2]), operation: .cacheSync)
        try await main.delete(IdQuery(2))
        switch answer {
        case .shorter: main.script(.getAll, .values([Member(id: 1)]))
        case .partialError:
            main.script(.getAll, .failure(StrataError.partial([Member(id: 1), nil], missingKeys: ["2"])))
        }
        clock.advance(by: .seconds(330))

        // When both are read again
        let error = await strataError { _ = try await repository.getAll(IdsQuery([1, 2]), operation: .cacheSync) }

        // Then 2 is not found, and its copy is gone: no later read serves it
        #expect(error?.code == .notFound)
        #expect(error?.partialValues(as: Member.self) == [Member(id: 1), nil])
        #expect(store.value(forKey: "2") == nil)
        await #expect(throws: StrataError.self) {
            _ = try await repository.get(IdQuery(2), operation: .cacheIgnoringValidation)
        }
    }

    /// A list read of a key neither source holds keeps the cache's list answer, as `get` does: nothing it lists went.
    @Test func aListReadOfAKeyNeitherSourceHoldsKeepsTheListAnswer() async throws {
        let main = ScriptedDataSource(["1": Member(id: 1)])
        let cache = MemoryDataSource<Member>(configuration: .init(key: { String($0.id) }))
        let repository = CacheRepository(main: main, cache: cache)
        _ = try await repository.getAll(AllObjectsQuery(), operation: .default)
        main.script(.getAll, .values([]))

        let error = await strataError { _ = try await repository.getAll(IdsQuery([1, 9]), operation: .cacheSync) }

        #expect(error?.code == .notFound)
        #expect(try await repository.getAll(AllObjectsQuery(), operation: .default) == [Member(id: 1)])
        #expect(main.callCount(.getAll) == 2, "the listing, then id 9; the list answer served the second listing")
    }

    /// A miss of a key neither source holds keeps the cache's list answer: nothing it lists went.
    @Test func aKeyNeitherSourceHoldsKeepsTheListAnswer() async throws {
        let main = ScriptedDataSource(["1": "one"])
        let cache = MemoryDataSource<String>(configuration: .init(key: { _ in "1" }))
        let repository = CacheRepository(main: main, cache: cache)
        _ = try await repository.getAll(AllObjectsQuery(), operation: .default)

        await #expect(throws: StrataError.self) { _ = try await repository.get(Self.key, operation: .cacheSync) }

        _ = try await repository.getAll(AllObjectsQuery(), operation: .default)
        #expect(main.callCount(.getAll) == 1)
    }
}
