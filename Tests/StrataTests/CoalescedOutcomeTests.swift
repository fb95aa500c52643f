import StrataTestSupport
import StrataTesting
import Testing

@testable import Strata

/// A plugin that notes each repository call as `<outcome> from <origin>`, through `CallTrail.observe`.
private final class RepositoryOutcomes: StrataPlugin {
    private let recorded = Locked<[String]>([])

    var lines: [String] { recorded.withLock { $0 } }

    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        try await CallTrail.observe(call, next: next) { observed, _ in
            guard call.source == "users" else { return }
            recorded.withLock { $0.append("\(observed.outcome) from \(observed.origin ?? "-")") }
        }
    }
}

struct CoalescedOutcomeTests {
    /// A repository read that joins another's main read reports main as its origin, as the read that started it.
    @Test func everyReadThatSharesAMainReadSaysMainAnsweredIt() async throws {
        let gate = AsyncGate(isOpen: false)
        let recorder = RepositoryOutcomes()
        let main = PluginTestStore(["1": "one"], gate: gate)
        let repository = CacheRepository(
            main: main.plugins([recorder], name: "api"),
            cache: PluginTestStore<String>().plugins([recorder], name: "memory")
        )
        let users = repository.plugins([recorder], name: "users")

        // Given two reads of one key that share main's read, held at main
        async let first = users.get(KeyQuery("1"), operation: .cacheSync)
        async let second = users.get(KeyQuery("1"), operation: .cacheSync)
        await poll { repository.mainReads.waiterCount >= 2 && gate.entered >= 1 }

        // When main answers
        gate.open()
        let values = try await [first, second]

        // Then both say main gave the value (the one that joined the run said "no origin": the run's steps went to
        // the trail of the read that started it)
        #expect(values == ["one", "one"])
        #expect(main.calls(.get) == 1)
        #expect(recorder.lines == ["miss from api", "miss from api"])
    }

    /// Copies of a repository share main reads: a copy whose read joined the other's heard nothing, so an offline
    /// outbox served through it waited for its timer to replay.
    @Test(arguments: [false, true])
    func aCopyWhoseReadSharedAnotherCopysMainReadHearsMainsAnswer(listRead: Bool) async throws {
        // Given a repository without a handler and a copy with one, each reading key 1 while main holds the read
        let gate = AsyncGate(isOpen: false)
        let main = PluginTestStore(["1": "one"], gate: gate)
        let original = CacheRepository(main: main, cache: PluginTestStore<String>())
        let heard = Locked<[String]>([])
        let observing = original.observingMainAnswers { call in heard.withLock { $0.append("\(call.method)") } }
        func read(_ repository: CacheRepository<PluginTestStore<String>, PluginTestStore<String>>) async throws {
            if listRead {
                _ = try await repository.getAll(IdsQuery(["1"]), operation: .cacheSync)
            } else {
                _ = try await repository.get(KeyQuery("1"), operation: .cacheSync)
            }
        }
        async let first: Void = read(original)
        await poll { original.mainReads.waiterCount >= 1 && gate.entered >= 1 }
        async let second: Void = read(observing)
        await poll { original.mainReads.waiterCount >= 2 }

        // When main answers the one read they share
        gate.open()
        _ = try await (first, second)

        // Then the copy's handler heard it, once
        #expect(gate.entered == 1)
        #expect(heard.withLock { $0 } == [listRead ? "getAll" : "get"])
    }

    /// A repository call coalesced by `CoalescingPlugin` runs in the shared run: the outcome the repository reported
    /// there (a miss) reached no observer outside the plugin, which then took the call for a hit.
    @Test func anObserverOutsideTheCoalescingPluginHearsHowTheRepositoryReadEnded() async throws {
        let recorder = RepositoryOutcomes()
        let users = CacheRepository(main: ScriptedDataSource<String>(["a": "A"]), cache: ScriptedDataSource<String>())
            .plugins([recorder, CoalescingPlugin()], name: "users")

        // (`DefaultOperation` reads as `.cacheSync`, and is `Hashable`: the plugin coalesces it)
        _ = try await users.get(KeyQuery("a"), operation: DefaultOperation())
        _ = try await users.get(KeyQuery("a"), operation: DefaultOperation())

        #expect(recorder.lines == ["miss from main", "hit from cache"])
    }
}
