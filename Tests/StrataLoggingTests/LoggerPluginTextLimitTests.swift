#if Logging
    import Testing

    @testable import StrataLogging

    /// A logged value is cut at `loggedTextLimit` Unicode scalars, whatever its `Character`s: a letter and 100,000
    /// combining marks are one `Character`, which a cut by `Character` logged whole (200 KB a line).
    struct LoggerPluginTextLimitTests {
        @Test func aValueOfOneHugeCharacterIsCut() {
            let value = "a" + String(repeating: "\u{301}", count: 100_000)

            let logged = LoggerPlugin.loggable(value)

            #expect(logged.unicodeScalars.count == LoggerPlugin.loggedTextLimit + 1)
            #expect(logged.hasSuffix("…"))
            #expect(LoggerPlugin.loggable("short") == "short")
        }
    }
#endif
