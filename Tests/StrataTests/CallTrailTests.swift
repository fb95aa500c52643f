import Strata
import StrataObservabilityTestSupport
import StrataTesting
import Testing

/// A plugin that notes each call as `<source> <method>: <outcome> from <origin>`, through `CallTrail.observe`.
private final class OutcomeRecorder: StrataPlugin {
    private let recorded = Locked<[String]>([])

    var lines: [String] { recorded.withLock { $0 } }

    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        try await CallTrail.observe(call, next: next) { observed, _ in
            let line = "\(call.source) \(call.method): \(observed.outcome) from \(observed.origin ?? "-")"
            recorded.withLock { $0.append(line) }
        }
    }
}

struct CallTrailTests {
    @Test func tellsHitsMissesAndStaleValuesApartFromTheSourcesSteps() async {
        let recorder = OutcomeRecorder()

        await ObservedScenario().run(recorder)

        let repository = recorder.lines.filter { $0.hasPrefix("users") }
        let expected = zip(ObservedScenario.outcomes, ObservedScenario.origins).map {
            "users get: \($0) from \($1 ?? "-")"
        }
        #expect(repository == expected)
        #expect(
            recorder.lines.prefix(4) == [
                "memory get: miss from memory", "api get: hit from api", "memory put: success from memory",
                "users get: miss from api",
            ]
        )
    }

    @Test func pluginsOfOneRepositoryShareItsTrail() async {
        let outer = OutcomeRecorder()
        let inner = OutcomeRecorder()
        let main = ScriptedDataSource<String>(["a": "A"])
        let users = CacheRepository(
            main: main.plugins([outer, inner], name: "api"),
            cache: ScriptedDataSource<String>().plugins([outer, inner], name: "memory")
        ).plugins([outer, inner], name: "users")

        _ = try? await users.get(KeyQuery("a"), operation: .cacheSync)

        #expect(outer.lines.last == "users get: miss from api")
        #expect(inner.lines.last == "users get: miss from api")
    }

    /// No steps without plugins on the sources: the repository says how its reads ended (a miss main answered,
    /// then a hit) and which of its sources answered, by its role (`main`, `cache`). A delete reads nothing.
    @Test func withoutPluginsOnTheSourcesTheRepositorySaysHowItsReadsEnded() async throws {
        let recorder = OutcomeRecorder()
        let users = CacheRepository(main: ScriptedDataSource<String>(["a": "A"]), cache: ScriptedDataSource<String>())
            .plugins([recorder], name: "users")

        _ = try await users.get(KeyQuery("a"), operation: .cacheSync)
        _ = try await users.get(KeyQuery("a"), operation: .cacheSync)
        try await users.delete(KeyQuery("a"), operation: .mainSync)

        let lines = ["users get: miss from main", "users get: hit from cache", "users delete: success from -"]
        #expect(recorder.lines == lines)
    }
}

/// A stream started inside an observed call reads in a task of its own, outside that call: its reads are no steps of
/// the call's trail. Before, the stream's task inherited the trail and added a step at every re-read for as long as
/// the stream lived (the call's origin and outcome rewritten after it returned, and the trail growing without bound).
@Test func aStreamStartedInsideACallAddsNoStepsToItsTrail() async throws {
    let recorder = OutcomeRecorder()
    let cache = ScriptedDataSource<String>(["a": "A"])
    let notes = CacheRepository(
        main: ScriptedDataSource<String>(["a": "A"]).plugins([recorder], name: "api"),
        cache: cache.plugins([recorder], name: "memory")
    )
    let call = PluginCall(method: .get, query: KeyQuery("x"), operation: CacheSyncOperation(), source: "outer")

    let steps: [CallTrail.Step] = try await CallTrail.run(for: call) { trail in
        var responses = notes.stream(KeyQuery("a"), operation: .cacheSync, bufferingNewest: 8).makeAsyncIterator()
        while let response = await responses.next() {
            if case .value = response { break }
        }
        _ = try await notes.put("B", in: KeyQuery("a"), operation: .cacheSync)
        while let response = await responses.next() {
            if case .value(let value, _, _, _, _) = response, value == "B" { break }
        }
        return trail.steps
    }

    #expect(steps.map(\.source).filter { $0 == "memory" }.count <= 1, "only the put made inside the call: \(steps)")
}
