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
    /// then a hit), and no origin is known.
    @Test func withoutPluginsOnTheSourcesTheRepositorySaysHowItsReadsEnded() async throws {
        let recorder = OutcomeRecorder()
        let users = CacheRepository(main: ScriptedDataSource<String>(["a": "A"]), cache: ScriptedDataSource<String>())
            .plugins([recorder], name: "users")

        _ = try await users.get(KeyQuery("a"), operation: .cacheSync)
        _ = try await users.get(KeyQuery("a"), operation: .cacheSync)
        try await users.delete(KeyQuery("a"), operation: .mainSync)

        #expect(recorder.lines == ["users get: miss from -", "users get: hit from -", "users delete: success from -"])
    }
}
