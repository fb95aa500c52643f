import Strata
import StrataTesting
import Testing

/// `CacheRepository.Configuration.onMainAnswer`: called once for each call of a plan main answered, never for one
/// main failed or the cache answered.
struct MainAnswerHookTests {
    /// The calls a hook saw, as `method key`.
    final class Seen: Sendable {
        private let calls = Locked<[String]>([])
        var all: [String] { calls.withLock { $0 } }
        func record(_ call: PluginCall) {
            let key = (call.query as? any KeyedQuery)?.key ?? "\(call.query)"
            calls.withLock { $0.append("\(call.method) \(call.source) \(key)") }
        }
    }

    func repository(_ harness: Harness, _ seen: Seen) -> CacheRepository<Harness.Spy, Harness.Spy> {
        harness.repository(.init(onMainAnswer: { seen.record($0) }))
    }

    @Test func readsMainAnswersAreSeenAndCacheHitsAndFailuresAreNot() async throws {
        let harness = Harness(main: ["1": "main", "2": "two"], cache: ["3": "cached"])
        let seen = Seen()
        let repository = repository(harness, seen)
        #expect(try await repository.get(IdQuery(3), operation: .cacheSync) == "cached")
        #expect(seen.all.isEmpty)
        #expect(try await repository.get(IdQuery(1), operation: .cacheSync) == "main")
        #expect(try await repository.get(IdQuery(2), operation: .main) == "two")
        #expect(seen.all == ["get main 1", "get main 2"])
        harness.mainStore.script(.get, .failure(offline))
        await #expect(throws: StrataError.self) { try await repository.get(IdQuery(4), operation: .mainSync) }
        #expect(seen.all.count == 2)
    }

    @Test func theMainReadOfTheKeysAListMissedIsSeenOnce() async throws {
        let harness = Harness(main: ["1": "one", "2": "two"], cache: ["3": "three"])
        let seen = Seen()
        let values = try await repository(harness, seen).getAll(IdsQuery([1, 2, 3]), operation: .cacheSync)
        #expect(values == ["one", "two", "three"])
        #expect(seen.all.count == 1)
        #expect(seen.all.first?.hasPrefix("getAll main") == true)
    }

    @Test func writesThatReachMainAreSeenAndCacheOnlyWritesAreNot() async throws {
        let harness = Harness()
        let seen = Seen()
        let repository = repository(harness, seen)
        _ = try await repository.put("cached", in: IdQuery(1), operation: .cache)
        #expect(seen.all.isEmpty)
        _ = try await repository.put("both", in: IdQuery(1), operation: .cacheSync)
        _ = try await repository.putAll(["a"], in: IdsQuery([2]), operation: .mainSync)
        try await repository.delete(IdQuery(1), operation: .mainSync)
        #expect(seen.all.map { $0.prefix(while: { $0 != " " }) } == ["put", "putAll", "delete"])
        harness.mainStore.script(.put, .failure(offline))
        await #expect(throws: StrataError.self) {
            try await repository.put("lost", in: IdQuery(5), operation: .cacheSync)
        }
        #expect(seen.all.count == 3)
    }

    @Test func anObservingCopyCallsBothHandlersAndSharesTheBroadcaster() async throws {
        let harness = Harness(main: ["1": "main"])
        let configured = Seen()
        let added = Seen()
        let original = repository(harness, configured)
        let observing = original.observingMainAnswers { added.record($0) }
        #expect(observing.changeBroadcaster === original.changeBroadcaster)
        _ = try await observing.get(IdQuery(1), operation: .main)
        _ = try await original.get(IdQuery(1), operation: .main)
        #expect(configured.all == ["get main 1", "get main 1"])
        #expect(added.all == ["get main 1"])
    }
}
