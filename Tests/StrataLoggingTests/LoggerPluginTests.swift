#if Logging
    import InMemoryLogging
    import Logging
    import Strata
    import StrataLogging
    import StrataMemory
    import StrataObservabilityTestSupport
    import Testing

    struct LoggerPluginTests {
        private let handler = InMemoryLogHandler()

        private func logger(at level: Logger.Level) -> Logger {
            var logger = Logger(label: "strata.test") { _ in handler }
            logger.logLevel = level
            return logger
        }

        @Test func writesOneIndexableLinePerRepositoryCall() async throws {
            await ObservedScenario().run(LoggerPlugin(logger: logger(at: .debug)))

            let lines = handler.entries.filter { $0.metadata["strata.operation"] != nil }
            #expect(lines.map(\.message.description) == ObservedScenario.outcomes.map { "get users: \($0)" })
            #expect(lines.map { $0.metadata["strata.outcome"]?.description } == ObservedScenario.outcomes)
            #expect(lines.map { $0.metadata["strata.origin"]?.description } == ObservedScenario.origins)
            #expect(
                lines.map { $0.metadata["strata.error.code"]?.description } == [nil, nil, "notFound", nil, "network"]
            )
            #expect(lines.map(\.level) == [.debug, .debug, .debug, .debug, .error])
            let first = try #require(lines.first?.metadata)
            #expect(first["strata.source"] == "users")
            #expect(first["strata.method"] == "get")
            #expect(first["strata.operation"] == "cacheSync")
            #expect(first["strata.query"] == "KeyQuery")
            #expect(first["strata.duration_ms"] != nil)
            #expect(first["strata.value"] == nil)
            // The error's code, not its message ("The server is down"): a message may quote a key or a server's words.
            #expect(lines.last?.metadata["strata.error"] == "StrataError.network: (message withheld)")
        }

        /// Attached to the repository alone (the cheapest wiring), a line still says which source gave the value:
        /// the repository says it, by the source's role. Before, its origin was left out.
        @Test func onTheRepositoryAloneALineSaysWhichSourceGaveTheValue() async {
            await ObservedScenario().run([LoggerPlugin(logger: logger(at: .debug))], onSources: false)

            let lines = handler.entries
            #expect(lines.map { $0.metadata["strata.source"]?.description } == Array(repeating: "users", count: 5))
            #expect(lines.map { $0.metadata["strata.outcome"]?.description } == ObservedScenario.outcomes)
            #expect(
                lines.map { $0.metadata["strata.origin"]?.description } == ["main", "cache", nil, "cache", nil]
            )
        }

        @Test func logsSourceCallsAtTheSourceLevel() async {
            await ObservedScenario().run(LoggerPlugin(logger: logger(at: .trace)))

            let sourceLines = handler.entries.filter { $0.metadata["strata.operation"] == nil }
            #expect(
                sourceLines.prefix(3).map(\.message.description) == [
                    "get memory: miss", "get api: hit", "put memory: success",
                ]
            )
            #expect(sourceLines.allSatisfy { $0.level == .trace || $0.level == .error })
        }

        @Test func withItsLevelDisabledLogsOnlyFailuresWithoutMeasuring() async {
            await ObservedScenario().run(LoggerPlugin(logger: logger(at: .info)))

            let lines = handler.entries
            #expect(lines.map(\.message.description) == ["get api: error", "get api: error", "get users: error"])
            #expect(lines.allSatisfy { $0.level == .error && $0.metadata["strata.duration_ms"] == nil })
            #expect(lines.last?.metadata["strata.error.code"] == "network")
            #expect(lines.allSatisfy { $0.metadata["strata.error"] == "StrataError.network: (message withheld)" })
        }

        @Test func includesQueriesAndValuesOnlyWhenAsked() async {
            await ObservedScenario().run(LoggerPlugin(logger: logger(at: .debug), includesValues: true))

            let first = handler.entries.first?.metadata
            #expect(first?["strata.value"] == "A")
            #expect(first?["strata.query"]?.description.contains("a") == true)
            let failure = handler.entries.last?.metadata["strata.error"]?.description
            #expect(failure == "StrataError.network: The server is down")
        }

        /// Before, a logged value was written as it was: a line break or an escape sequence in it forged or hid lines
        /// in a text log.
        @Test func aLoggedValueIsOneLineWhateverItHolds() async throws {
            // A source's calls are logged at trace level
            let plugin = LoggerPlugin(logger: logger(at: .trace), includesValues: true)
            let store = MemoryDataSource<String>().plugins([plugin], name: "notes")

            _ = try await store.put("fine\nlevel=error forged\u{1B}[2J", in: KeyQuery("k"))

            let value = try #require(handler.entries.last?.metadata["strata.value"]?.description)
            #expect(value == #"fine level=error forged\u{1B}[2J"#)
        }
    }
#endif
