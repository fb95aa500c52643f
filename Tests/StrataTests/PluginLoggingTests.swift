import Strata
import StrataTesting
import Testing

/// Collects log records.
final class PluginTestLog: Sendable {
    private let records = Locked<[LogRecord]>([])

    var all: [LogRecord] { records.withLock { $0 } }

    func sink(_ record: LogRecord) { records.withLock { $0.append(record) } }
}

struct PluginLoggingTests {
    @Test func byDefaultLogsOutcomesAtDebugWithoutValues() async throws {
        // Given
        let log = PluginTestLog()
        let source = PluginTestStore(["token": "s3cret"]).plugins([LoggingPlugin(sink: log.sink)], name: "tokens")

        // When
        _ = try await source.get(KeyQuery("token"))
        _ = try await source.put("an0ther", in: KeyQuery("token"))

        // Then no start records, no values anywhere
        #expect(log.all.map(\.level) == [.debug, .debug])
        #expect(log.all.map(\.event) == [.succeeded, .succeeded])
        #expect(log.all.allSatisfy { $0.value == nil })
        let text = log.all.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(!text.contains("s3cret") && !text.contains("an0ther"))
        // And the query by its kind only: a key may be a URL with a token in its query (before, its text was logged)
        #expect(log.all[0].message.hasPrefix("get KeyQuery on tokens: succeeded in "))
        #expect(!text.contains("\"token\""))
    }

    /// With values on, the query and the values show as text, each on one line and cut at 1,024 Unicode scalars: a
    /// value's line breaks no longer split one record into several lines of a text log, or forge another.
    @Test func valuesShownAreOneLineAndBounded() async throws {
        let log = PluginTestLog()
        let forged = "ok\n2026-12-05 error forged line"
        let long = String(repeating: "x", count: 5_000)
        let source = PluginTestStore(["a": forged, "b": long])
            .plugins([LoggingPlugin(includesValues: true, sink: log.sink)], name: "notes")

        _ = try await source.get(KeyQuery("a"))
        _ = try await source.get(KeyQuery("b"))

        #expect(log.all[0].message.hasPrefix("get KeyQuery(key: \"a\") on notes: succeeded in "))
        #expect(log.all.allSatisfy { !$0.message.contains("\n") && !($0.value ?? "").contains("\n") })
        #expect(log.all[1].value?.unicodeScalars.count == 1_025, "1,024 and the ellipsis")
    }

    @Test func traceLevelAlsoLogsTheStartOfEachCall() async throws {
        let log = PluginTestLog()
        let source = PluginTestStore(["a": 1]).plugins([LoggingPlugin(minimumLevel: .trace, sink: log.sink)])

        _ = try await source.get(KeyQuery("a"))

        #expect(log.all.map(\.event) == [.started, .succeeded])
        #expect(log.all.map(\.level) == [.trace, .debug])
    }

    /// A plugin that logs only misses and failures observes failures alone, and one that logs nothing skips the
    /// calls: before, it intercepted every call whatever its level (and a counting plugin beside it lost its counting
    /// path).
    @Test func itTakesPartOnlyAsFarAsItsLevelsLog() async throws {
        let attachment = PluginAttachment(name: "notes", kind: .dataSource)
        func participation(_ level: LogLevel) -> PluginParticipation {
            LoggingPlugin(minimumLevel: level) { _ in }.participation(in: attachment)
        }
        #expect(participation(.trace) == .intercepts)
        #expect(participation(.debug) == .intercepts)
        #expect(participation(.info) == .observesFailures)
        #expect(participation(.error) == .observesFailures)
        #expect(participation(.critical) == .skipped)

        // And at info a miss is not logged, a failure is (without a duration: only failures were observed)
        let log = PluginTestLog()
        let store = PluginTestStore(["a": 1])
        let source = store.plugins([LoggingPlugin(minimumLevel: .info, sink: log.sink)], name: "notes")
        _ = try await source.get(KeyQuery("a"))
        _ = try? await source.get(KeyQuery("missing"))
        store.failNext(StrataError(.network, "Reset"))
        _ = try? await source.get(KeyQuery("a"))
        #expect(log.all.map(\.event) == [.failed])
        #expect(log.all.first?.errorCode == .network)
        #expect(log.all.first?.duration == nil)
    }

    @Test func errorLevelLogsOnlyFailures() async throws {
        let log = PluginTestLog()
        let store = PluginTestStore(["a": 1])
        let source = store.plugins([LoggingPlugin(minimumLevel: .error, sink: log.sink)])

        _ = try await source.get(KeyQuery("a"))
        _ = try? await source.get(KeyQuery("missing"))
        store.failNext(StrataError(.network, "Reset"))
        _ = try? await source.get(KeyQuery("a"))

        #expect(log.all.count == 1)
        #expect(log.all.first?.level == .error)
        #expect(log.all.first?.event == .failed)
        #expect(log.all.first?.errorCode == .network)
    }

    /// An error's message may quote a key or a server's answer: only its code and summary are logged, unless values
    /// are.
    @Test(arguments: [false, true])
    func errorMessagesAreLoggedOnlyWithValues(includesValues: Bool) async throws {
        let log = PluginTestLog()
        let store = PluginTestStore(["a": 1])
        let source = store.plugins([LoggingPlugin(includesValues: includesValues, sink: log.sink)], name: "tokens")

        store.failNext(StrataError(.network, "POST https://host/?token=s3cret failed"))
        _ = try? await source.get(KeyQuery("a"))
        store.failNext(StrataError(.unexpectedResponse, "the server said s3cret"))
        _ = try? await source.get(KeyQuery("a"))

        let errors = log.all.compactMap(\.error)
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0.contains("s3cret") } == includesValues)
        #expect(log.all.map(\.errorCode) == [.network, .unexpectedResponse])
        if !includesValues {
            #expect(
                errors == [
                    "StrataError.network: (message withheld)", "StrataError.unexpectedResponse: (message withheld)",
                ]
            )
        }
    }

    @Test func missesAreLoggedAtDebugWithTheirCode() async throws {
        let log = PluginTestLog()
        let repository = SingleDataSourceRepository(PluginTestStore<Int>())
            .plugins([LoggingPlugin(sink: log.sink)], name: "repo")

        _ = try? await repository.get(KeyQuery("missing"), operation: .mainSync)

        let record = try #require(log.all.first)
        #expect(record.level == .debug)
        #expect(record.event == .missed)
        #expect(record.errorCode == .notFound)
        #expect(record.operation == "mainSync")
        #expect(record.metadata["strata.error.code"] == "notFound")
        #expect(record.message.contains("[mainSync]: missed (notFound)"))
    }

    @Test func valuesAreLoggedOnlyWhenAskedFor() async throws {
        let log = PluginTestLog()
        let plugin = LoggingPlugin(minimumLevel: .trace, includesValues: true, sink: log.sink)
        let source = PluginTestStore<String>().plugins([plugin])

        _ = try await source.put("visible", in: KeyQuery("a"))

        #expect(log.all.map(\.value) == ["visible", "visible"])
        #expect(log.all.last?.metadata["strata.value"] == "visible")
    }

    @Test func recordsCarryTheDurationOnThePluginsClock() async throws {
        let clock = ManualClock()
        let log = PluginTestLog()
        let source = PluginTestStore(["a": 1], clock: clock, readDurations: [.microseconds(5_250)])
            .plugins([LoggingPlugin(clock: clock, sink: log.sink)])

        _ = try await source.get(KeyQuery("a"))

        #expect(log.all.first?.duration == .microseconds(5_250))
        #expect(log.all.first?.message.hasSuffix("in 5.250 ms") == true)
        #expect(log.all.first?.metadata["strata.duration"] == "5.250 ms")
    }

    @Test func customLevelsDecideWhatIsLogged() async throws {
        let log = PluginTestLog()
        let levels = LoggingPlugin.Levels(succeeded: .info, missed: .warning)
        let source = PluginTestStore(["a": 1]).plugins([
            LoggingPlugin(minimumLevel: .info, levels: levels, sink: log.sink)
        ])

        _ = try await source.get(KeyQuery("a"))
        _ = try? await source.get(KeyQuery("b"))

        #expect(log.all.map(\.level) == [.info, .warning])
        #expect(LogLevel.trace < .debug && LogLevel.error < .critical)
    }
}
