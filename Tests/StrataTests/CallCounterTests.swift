import Strata
import StrataObservabilityTestSupport
import StrataTesting
import Testing

/// A plugin that counts, noting each call as `<source> <method> <operation>: <outcome>` and whether it was timed.
private final class RecordingCounter: StrataPlugin, CallCounter {
    private let interval: Int
    private let recorded = Locked<[(line: String, timed: Bool)]>([])

    init(timingOneIn interval: Int = 16) { self.interval = interval }

    var lines: [String] { recorded.withLock { $0.map(\.line) } }
    var timed: [Bool] { recorded.withLock { $0.map(\.timed) } }

    func participation(in attachment: PluginAttachment) -> PluginParticipation {
        .counts(self, timingOneIn: interval)
    }

    func count(_ call: CountedCall) {
        let operation = call.operationName ?? "-"
        let line = "\(call.source) \(call.method) \(operation): \(call.outcome) \(call.errorCode ?? "-")"
        recorded.withLock { $0.append((line, call.duration != nil)) }
    }
}

/// `.cacheSync` under another name.
private struct Named: RepositoryOperation {
    let name: String

    var plan: OperationPlan { CacheSyncOperation().plan }
}

/// A repository of its own that does not say how its reads end: counted through a trail.
private struct PassThroughRepository<Base: GetRepository>: GetRepository {
    let base: Base

    func get(_ query: any Query, operation: any RepositoryOperation) async throws -> Base.Value {
        try await base.get(query, operation: operation)
    }

    func getAll(_ query: any Query, operation: any RepositoryOperation) async throws -> [Base.Value] {
        try await base.getAll(query, operation: operation)
    }
}

struct CallCounterTests {
    @Test func aCountingPluginSeesEveryLayerWithTheRepositorysOwnOutcomes() async {
        let counter = RecordingCounter()

        await ObservedScenario().run(counter)

        let repository = counter.lines.filter { $0.hasPrefix("users") }
        #expect(
            repository == [
                "users get cacheSync: miss -", "users get cacheSync: hit -", "users get cacheSync: miss notFound",
                "users get cacheSync: staleServed -", "users get cacheSync: error network",
            ]
        )
        #expect(
            counter.lines.prefix(4) == [
                "memory get -: miss notFound", "api get -: hit -", "memory put -: success -",
                "users get cacheSync: miss -",
            ]
        )
    }

    @Test func aCacheRepositoryTellsItsOutcomesWithoutPluginsOnItsSources() async {
        let counter = RecordingCounter()
        let scenario = ObservedScenario()
        let users = CacheRepository(main: scenario.main, cache: scenario.cache).plugins([counter], name: "users")

        _ = try? await users.get(KeyQuery("a"), operation: .cacheSync)
        _ = try? await users.get(KeyQuery("a"), operation: .cacheSync)
        _ = try? await users.get(KeyQuery("a"), operation: .mainSync)
        scenario.cache.script(
            .get,
            .failure(StrataError.notValid(staleEntry: StoredEntry(value: "old", metadata: EntryMetadata())))
        )
        scenario.main.script(.get, .failure(StrataError(.network, "The server is down")))
        _ = try? await users.get(KeyQuery("stale"), operation: CacheSyncOperation { _ in true })

        #expect(
            counter.lines == [
                "users get cacheSync: miss -", "users get cacheSync: hit -", "users get mainSync: hit -",
                "users get cacheSync: staleServed -",
            ]
        )
    }

    @Test func anErasedCacheRepositoryStillTellsItsOutcomes() async {
        // Given a cache repository stored as `AnyRepository`, counted there, without plugins on its sources
        let counter = RecordingCounter()
        let scenario = ObservedScenario()
        let users = AnyRepository(CacheRepository(main: scenario.main, cache: scenario.cache))
            .plugins([counter], name: "users")

        _ = try? await users.get(KeyQuery("a"), operation: .cacheSync)
        _ = try? await users.get(KeyQuery("a"), operation: .cacheSync)

        // Then the assembler passes on the repository's own outcomes: a miss, then a hit
        #expect(counter.lines == ["users get cacheSync: miss -", "users get cacheSync: hit -"])
    }

    /// `plugins(_:)` called again wraps the plugged repository once more: the outer wrapping's counter is told how
    /// each read ended, whatever the inner plugins do with the call. (Before, every read that returned was a hit to
    /// it: the inner plugins' trail and the repository's report were not the outer one's.)
    @Test(arguments: ["observes", "counts", "none"])
    func aRepositoryPluggedTwiceTellsItsOutcomesToTheOuterPlugins(inner: String) async {
        // Given a cache repository with plugins, wrapped again with a counter
        let counter = RecordingCounter()
        let scenario = ObservedScenario()
        let innerPlugins: [any StrataPlugin] =
            switch inner {
            case "observes": [RecordingObserver()]
            case "counts": [RecordingCounter()]
            default: []
            }
        let users = CacheRepository(main: scenario.main, cache: scenario.cache)
            .plugins(innerPlugins, name: "users")
            .plugins([counter], name: "users")

        // When a key is read twice
        _ = try? await users.get(KeyQuery("a"), operation: .cacheSync)
        _ = try? await users.get(KeyQuery("a"), operation: .cacheSync)

        // Then the counter sees a miss, then a hit
        #expect(counter.lines == ["users get cacheSync: miss -", "users get cacheSync: hit -"], "\(inner)")
    }

    @Test func aRepositoryThatDoesNotTellItsOutcomesIsCountedFromItsSourcesSteps() async throws {
        let counter = RecordingCounter()
        let observer = RecordingCounter()
        let main = ScriptedDataSource<String>(["a": "A"])
        let cache = ScriptedDataSource<String>()
        let users = PassThroughRepository(
            base: CacheRepository(main: main.plugins([observer], name: "api"), cache: cache.plugins([observer]))
        ).plugins([counter], name: "users")

        _ = try await users.get(KeyQuery("a"), operation: .cacheSync)
        _ = try await users.get(KeyQuery("a"), operation: .cacheSync)

        #expect(counter.lines == ["users get cacheSync: miss -", "users get cacheSync: hit -"])
    }

    @Test func oneCallInTheIntervalIsTimed() async throws {
        let counter = RecordingCounter(timingOneIn: 4)
        let source = ScriptedDataSource<String>(["a": "A"]).plugins([counter], name: "memory")

        for _ in 0..<9 { _ = try await source.get(KeyQuery("a")) }

        #expect(counter.timed == [true, false, false, false, true, false, false, false, true])
    }

    @Test func everyCallIsTimedWhenAnotherPluginObservesIt() async throws {
        let counter = RecordingCounter(timingOneIn: 4)
        let source = ScriptedDataSource<String>(["a": "A"])
            .plugins([counter, RecordingObserver()], name: "memory")

        for _ in 0..<3 { _ = try await source.get(KeyQuery("a")) }

        #expect(counter.timed == [true, true, true])
        #expect(counter.lines == Array(repeating: "memory get -: hit -", count: 3))
    }

    @Test func aCountingPluginCalledAsMiddlewareCountsTheCall() async throws {
        let counter = RecordingCounter()

        let value = try await counter.intercept(PluginCall(method: .get, query: KeyQuery("a"), source: "direct")) { 42 }

        #expect(value == 42)
        #expect(counter.lines == ["direct get -: hit -"])
        #expect(counter.timed == [true])
    }

    @Test func callsUnderMoreOperationsThanAChainKeepsReportsForAreEachCountedUnderTheirOwn() async throws {
        // A chain makes a report once per method, operation and outcome, up to a limit of 64; past it, each call's
        // report is built as it is counted. Both kinds must read the same, timed or not.
        let counter = RecordingCounter(timingOneIn: 2)
        let users = CacheRepository(main: ScriptedDataSource<String>(), cache: ScriptedDataSource<String>(["a": "A"]))
            .plugins([counter], name: "users")
        let names = (0..<80).map { "operation\($0)" }

        for name in names + names { _ = try await users.get(KeyQuery("a"), operation: Named(name: name)) }

        #expect(counter.lines == (names + names).map { "users get \($0): hit -" })
        #expect(counter.timed == (0..<160).map { $0.isMultiple(of: 2) })
    }

    @Test func callsCountedFromManyTasksAtOnceAreEachCountedOnce() async throws {
        // The reports are made while other tasks count: each call is counted once, under its own kind.
        let counter = RecordingCounter()
        let source = ScriptedDataSource<String>(["a": "A"]).plugins([counter], name: "memory")

        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for call in 0..<200 {
                        if (task + call).isMultiple(of: 2) {
                            _ = try? await source.get(KeyQuery("a"))
                        } else {
                            _ = try? await source.get(KeyQuery("missing"))
                        }
                    }
                }
            }
        }

        #expect(counter.lines.filter { $0 == "memory get -: hit -" }.count == 800)
        #expect(counter.lines.filter { $0 == "memory get -: miss notFound" }.count == 800)
        #expect(counter.lines.count == 1_600)
    }

    @Test func countingParticipationsAreEqualWhenTheyTimeAlike() {
        let counter = RecordingCounter()

        #expect(PluginParticipation.counts(counter, timingOneIn: 4) == .counts(counter, timingOneIn: 4))
        #expect(PluginParticipation.counts(counter, timingOneIn: 4) != .counts(counter, timingOneIn: 8))
        #expect(PluginParticipation.counts(counter, timingOneIn: 0) == .counts(counter, timingOneIn: 1))
        #expect("\(PluginParticipation.counts(counter))" == "counts(timingOneIn: 16)")
    }
}

/// A plugin that observes every call and keeps nothing: it makes its source's calls observed.
private struct RecordingObserver: StrataPlugin {
    func participation(in attachment: PluginAttachment) -> PluginParticipation { .observes }
}
