import Strata
import StrataObservabilityTestSupport
import StrataTesting
import Testing

/// A plugin that takes part as it is told and notes every way it is called.
private final class CountingPlugin: StrataPlugin {
    struct Counts: Sendable, Equatable {
        var asked: [String] = []
        var intercepted = 0
        var finished: [String] = []
        var failed: [String] = []
    }

    private let taking: PluginParticipation
    private let state = Locked(Counts())

    init(_ taking: PluginParticipation) { self.taking = taking }

    var counts: Counts { state.withLock { $0 } }

    func participation(in attachment: PluginAttachment) -> PluginParticipation {
        state.withLock { $0.asked.append("\(attachment.name) \(attachment.kind)") }
        return taking
    }

    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        state.withLock { $0.intercepted += 1 }
        return try await next()
    }

    func callDidFinish(_ observed: ObservedCall, result: (any Sendable)?) {
        let line = "\(observed.call.source) \(observed.call.method): \(observed.outcome) from \(observed.origin ?? "-")"
        state.withLock { $0.finished.append(line) }
    }

    func callDidFail(_ call: PluginCall, error: any Error) {
        let code = error.strataCode.map { "\($0)" } ?? "other"
        state.withLock { $0.failed.append("\(call.source) \(call.method): \(code)") }
    }
}

/// A plugin that intercepts and notes whether a repository call's trail is there.
private final class TrailProbe: StrataPlugin {
    private let seen = Locked<[Bool]>([])

    var trailSeen: [Bool] { seen.withLock { $0 } }

    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        let hasTrail = CallTrail.current != nil
        seen.withLock { $0.append(hasTrail) }
        return try await next()
    }
}

struct PluginParticipationTests {
    @Test func aSkippedPluginIsAskedOncePerAttachmentAndNeverPerCall() async {
        let plugin = CountingPlugin(.skipped)

        await ObservedScenario().run(plugin)

        #expect(plugin.counts.asked == ["api dataSource", "memory dataSource", "users repository"])
        #expect(plugin.counts.intercepted == 0)
        #expect(plugin.counts.finished.isEmpty)
        #expect(plugin.counts.failed.isEmpty)
    }

    @Test func anObservingPluginSeesEveryLayerWithOutcomesAndOrigins() async {
        let plugin = CountingPlugin(.observes)

        await ObservedScenario().run(plugin)

        let repository = plugin.counts.finished.filter { $0.hasPrefix("users") }
        let expected = zip(ObservedScenario.outcomes, ObservedScenario.origins).map {
            "users get: \($0) from \($1 ?? "-")"
        }
        #expect(repository == expected)
        #expect(
            plugin.counts.finished.prefix(4) == [
                "memory get: miss from memory", "api get: hit from api", "memory put: success from memory",
                "users get: miss from api",
            ]
        )
        #expect(plugin.counts.intercepted == 0)
        #expect(plugin.counts.failed.isEmpty)
    }

    /// Without plugins on its sources, a repository's call has a trail with no steps: the repository says how its
    /// read ended itself, and which of its sources gave the value (by its role), beside a plugin that intercepts or
    /// not.
    @Test(arguments: [false, true])
    func anObservingPluginOnTheRepositoryAloneSeesItsOutcomes(besideAnInterceptor: Bool) async {
        let plugin = CountingPlugin(.observes)
        let plugins: [any StrataPlugin] = besideAnInterceptor ? [CountingPlugin(.intercepts), plugin] : [plugin]

        await ObservedScenario().run(plugins, onSources: false)

        let origins = ObservedScenario.origins.map { $0.map { $0 == "api" ? "main" : "cache" } ?? "-" }
        #expect(
            plugin.counts.finished == zip(ObservedScenario.outcomes, origins).map { "users get: \($0) from \($1)" }
        )
    }

    @Test func aFailureObserverSeesOnlyTheCallsThatThrow() async {
        let plugin = CountingPlugin(.observesFailures)

        await ObservedScenario().run(plugin)

        #expect(
            plugin.counts.failed == [
                "memory get: notFound",
                "memory get: notFound", "api get: notFound", "users get: notFound",
                "memory get: notValid", "api get: network",
                "memory get: notFound", "api get: network", "users get: network",
            ]
        )
        #expect(plugin.counts.intercepted == 0)
        #expect(plugin.counts.finished.isEmpty)
    }

    @Test(arguments: [(PluginParticipation.observes, true), (.observesFailures, false), (.skipped, false)])
    func aRepositoryCallHasATrailOnlyWhenAPluginObservesIt(
        participation: PluginParticipation,
        hasTrail: Bool
    ) async throws {
        let probe = TrailProbe()
        let users = CacheRepository(
            main: PluginTestStore(["a": 1]),
            cache: PluginTestStore(["a": 1]).plugins([probe], name: "memory")
        ).plugins([CountingPlugin(participation)], name: "users")

        _ = try await users.get(KeyQuery("a"), operation: .cacheSync)

        #expect(probe.trailSeen == [hasTrail])
    }

    @Test func observersKeepTheirPlaceAmongPluginsThatIntercept() async throws {
        // Given an observer outside a fallback plugin and one inside it, on a source that fails
        let outer = CountingPlugin(.observes)
        let inner = CountingPlugin(.observes)
        let store = PluginTestStore<Int>()
        store.failNext(StrataError(.network, "down"))
        let source = store.plugins([outer, FallbackPlugin(fallback: 7), inner], name: "flaky")

        // When
        let value = try await source.get(KeyQuery("a"))

        // Then the outer one sees the fallback's value, the inner one the failure
        #expect(value == 7)
        #expect(outer.counts.finished == ["flaky get: hit from flaky"])
        #expect(inner.counts.finished == ["flaky get: error from flaky"])
        #expect(outer.counts.intercepted + inner.counts.intercepted == 0)
    }

    @Test func anObserverCalledAsMiddlewareReportsTheCall() async throws {
        struct Observer: StrataPlugin {
            let counter = CountingPlugin(.observes)
            func participation(in attachment: PluginAttachment) -> PluginParticipation { .observes }
            func callDidFinish(_ observed: ObservedCall, result: (any Sendable)?) {
                counter.callDidFinish(observed, result: result)
            }
        }
        let observer = Observer()

        let value = try await observer.intercept(PluginCall(method: .get, query: KeyQuery("a"), source: "direct")) {
            42
        }

        #expect(value == 42)
        #expect(observer.counter.counts.finished == ["direct get: hit from direct"])
    }
}
