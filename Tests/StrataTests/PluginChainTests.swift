import Strata
import StrataTesting
import Testing

/// A plugin that serves a fixed value when the call fails.
struct FallbackPlugin: StrataPlugin {
    let fallback: any Sendable

    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        do {
            return try await next()
        } catch {
            guard let value = fallback as? R else { throw error }
            return value
        }
    }
}

/// A plugin that fails every call without running it.
struct FailFastPlugin: StrataPlugin {
    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        throw StrataError(.network, "Circuit open for \(call.source)")
    }
}

/// A plugin that records the calls it sees.
final class RecordingPlugin: StrataPlugin {
    private let seen = Locked<[String]>([])

    var calls: [String] { seen.withLock { $0 } }

    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        let value = call.value.map { " value=\($0)" } ?? ""
        let line = "\(call.source) \(call.method) \(call.queryDescription) \(call.operationName ?? "-")\(value)"
        seen.withLock { $0.append(line) }
        return try await next()
    }
}

struct PluginChainTests {
    @Test func firstPluginIsOutermostOnADataSource() async throws {
        // Given three plugins writing to one journal
        let journal = PluginTestJournal()
        let store = PluginTestStore(["a": 1])
        let source = store.plugins(["outer", "middle", "inner"].map { TracingPlugin(name: $0, journal: journal) })

        // When
        let value = try await source.get(KeyQuery("a"))

        // Then the first sees the call first and the outcome last
        #expect(value == 1)
        #expect(journal.all == ["outer>", "middle>", "inner>", "<inner", "<middle", "<outer"])
    }

    @Test func firstPluginIsOutermostOnARepository() async throws {
        let journal = PluginTestJournal()
        let repository = SingleDataSourceRepository(PluginTestStore(["a": 1]))
            .plugins([TracingPlugin(name: "1", journal: journal), TracingPlugin(name: "2", journal: journal)])

        try await repository.delete(KeyQuery("a"), operation: .main)

        #expect(journal.all == ["1>", "2>", "<2", "<1"])
    }

    @Test func nestedWrappersPutTheLastAttachedOutermost() async throws {
        let journal = PluginTestJournal()
        let source = PluginTestStore(["a": 1])
            .plugins([TracingPlugin(name: "inner", journal: journal)])
            .plugins([TracingPlugin(name: "outer", journal: journal)])

        _ = try await source.get(KeyQuery("a"))

        #expect(journal.all == ["outer>", "inner>", "<inner", "<outer"])
    }

    @Test func pluginsSeeMethodQueryOperationSourceAndWrittenValue() async throws {
        let recorder = RecordingPlugin()
        let source = PluginTestStore<Int>().plugins([recorder], name: "numbers")
        let repository = SingleDataSourceRepository(PluginTestStore<Int>()).plugins([recorder], name: "repo")

        _ = try await source.put(7, in: KeyQuery("a"))
        _ = try await source.get(KeyQuery("a"))
        _ = try await source.putAll([1, 2], in: IdsQuery(["x", "y"]))
        _ = try await source.getAll(IdsQuery(["x"]))
        try await source.delete(KeyQuery("a"))
        _ = try? await repository.get(KeyQuery("b"), operation: .cacheSync)
        _ = try? await repository.get(KeyQuery("b"), operation: .cacheIgnoringValidation)
        _ = try? await repository.get(KeyQuery("b"))

        #expect(
            recorder.calls == [
                "numbers put KeyQuery(key: \"a\") - value=7",
                "numbers get KeyQuery(key: \"a\") -",
                "numbers putAll IdsQuery<String>(ids: [\"x\", \"y\"]) - value=[1, 2]",
                "numbers getAll IdsQuery<String>(ids: [\"x\"]) -",
                "numbers delete KeyQuery(key: \"a\") -",
                "repo get KeyQuery(key: \"b\") cacheSync",
                "repo get KeyQuery(key: \"b\") cacheIgnoringValidation",
                "repo get KeyQuery(key: \"b\") default",
            ]
        )
    }

    @Test func aPluginCanServeAFallbackValue() async throws {
        // Given a source without the value
        let source = PluginTestStore<String>().plugins([FallbackPlugin(fallback: "fallback")])

        // When / Then the plugin replaces the error with its value
        #expect(try await source.get(KeyQuery("missing")) == "fallback")
        // and a fallback of the wrong type leaves the error alone
        await #expect(throws: StrataError.self) { try await source.getAll(IdsQuery(["missing"])) }
    }

    @Test func aPluginCanFailFastWithoutCallingTheSource() async throws {
        let store = PluginTestStore(["a": 1])
        let source = store.plugins([FailFastPlugin()])

        let error = await #expect(throws: StrataError.self) { try await source.get(KeyQuery("a")) }

        #expect(error?.code == .network)
        #expect(store.calls(.get) == 0)
    }

    @Test func anOuterPluginSeesTheOutcomeAnInnerOneReplaced() async throws {
        let metrics = MetricsPlugin()
        let source = PluginTestStore<String>().plugins([metrics, FallbackPlugin(fallback: "x")], name: "s")

        _ = try await source.get(KeyQuery("missing"))

        #expect(metrics.snapshot()[.init(source: "s", method: .get)].hits == 1)
    }

    @Test func withoutPluginsCallsGoStraightThrough() async throws {
        let store = PluginTestStore(["a": 1])
        let source = store.plugins([])

        #expect(try await source.get(KeyQuery("a")) == 1)
        #expect(source.name == "PluginTestStore<Int>")
        #expect(store.calls(.get) == 1)
    }

    @Test func pluggedSourceKeepsTheCapabilitiesOfItsSource() async throws {
        // A plugged source can stand wherever its source could: as a cache of a repository.
        let recorder = RecordingPlugin()
        let repository = CacheRepository(
            main: PluginTestStore(["a": 1]).plugins([recorder], name: "main"),
            cache: PluginTestStore<Int>().plugins([recorder], name: "cache")
        )

        #expect(try await repository.get(KeyQuery("a"), operation: .cacheSync) == 1)
        #expect(
            recorder.calls.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
                == ["cache get", "main get", "cache put"]
        )
    }
}
