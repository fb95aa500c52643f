import Foundation
import Strata
import StrataTesting
import Testing

struct StrataErrorDescriptionTests {
    @Test func descriptionIsOneLineWithCodeMessageAndHTTPDetails() {
        // The HTTP details come from the cause, two levels down: the core error names no transport.
        let remote = RemoteFailureStub(status: 503, isRetryable: true, suggestedRetryDelay: .seconds(2))
        let cause = StrataError(.io, "Reading the response failed", underlying: remote)
        let error = StrataError(.unexpectedResponse, "GET /users/42 answered 503", underlying: cause)

        #expect(
            error.description
                == "StrataError.unexpectedResponse: GET /users/42 answered 503 (HTTP 503, retry after 2.0 seconds)"
        )
        #expect(!error.description.contains("\n"))
        #expect(error.localizedDescription == "unexpectedResponse: GET /users/42 answered 503")
        #expect(error.suggestedRetryDelay == .seconds(2))
        #expect(error.cause(as: RemoteFailureStub.self) == remote)
    }

    /// What observability plugins report unless told to include values: the code and the cause's summary, no
    /// message; an error of another kind by its type alone.
    @Test func aRedactedErrorKeepsItsCodeAndSummaryButNotItsMessage() {
        struct Leaky: Error, CustomStringConvertible { var description: String { "key s3cret" } }
        let remote = RemoteFailureStub(status: 503, isRetryable: true, suggestedRetryDelay: .seconds(2))
        let error = StrataError(.unexpectedResponse, "GET /users/s3cret answered 503", underlying: remote)

        let redacted = error.redacted()

        #expect(redacted.description == "StrataError.unexpectedResponse: HTTP 503, retry after 2.0 seconds")
        #expect(redacted.code == .unexpectedResponse && redacted.isRetryable == error.isRetryable)
        #expect(StrataError(.io, "s3cret").redacted().description == "StrataError.io: (message withheld)")
        let other = String(describing: StrataError.redacting(Leaky()))
        #expect(other.hasSuffix("Leaky (message withheld)") && !other.contains("s3cret"))
    }

    @Test func aMessageWithLineBreaksStillPrintsOnOneLine() {
        let error = StrataError(.invalidArgument, "first\nsecond\r\nthird")

        #expect(error.description == "StrataError.invalidArgument: first second third")
    }

    /// Before, only line breaks were replaced: an escape sequence, DEL or a bidirectional override in a key or a
    /// server's text went into a log as it was, and could rewrite or hide what a terminal showed.
    @Test func aMessageShowsItsControlCharactersInsteadOfActingOnThem() {
        let error = StrataError(.invalidArgument, "key \u{1B}[2Jgone\u{7F} \u{202E}txt.exe")

        #expect(error.description == #"StrataError.invalidArgument: key \u{1B}[2Jgone\u{7F} \u{202E}txt.exe"#)
    }

    @Test func detailedDescriptionDrawsTheCausesAsATree() {
        let root = StrataError(.io, "open failed", underlying: CocoaError(.fileNoSuchFile), file: "M/A.swift", line: 1)
        let middle = StrataError(.corrupt, "entry unreadable", underlying: root, file: "M/B.swift", line: 2)
        let top = StrataError(.network, "download failed", underlying: middle, file: "M/C.swift", line: 3)

        let lines = top.detailedDescription().split(separator: "\n").map(String.init)

        #expect(lines.first == "StrataError.network: download failed")
        #expect(lines[1] == "├─ Cause:")
        #expect(lines[2] == "│  └─ StrataError.corrupt: entry unreadable")
        #expect(lines[3] == "│     ├─ Cause:")
        #expect(lines[4] == "│     │  └─ StrataError.io: open failed")
        #expect(lines[5].hasPrefix("│     │     ├─ Cause: "))
        #expect(lines.contains("│     │     └─ Source location: M/A.swift:1"))
        #expect(lines.contains("│     └─ Source location: M/B.swift:2"))
        #expect(lines.last == "└─ Source location: M/C.swift:3")
        #expect(String(reflecting: top) == top.detailedDescription())
    }

    /// Before, a cause that is not a `StrataError` was written with `String(reflecting:)`: its debug description,
    /// which PostgreSQL's `PSQLError` fills with the statement's bound values (keys, JSON values) that its
    /// `description` keeps out, and whose server text went to a terminal as it was.
    @Test func aForeignCauseShowsItsDescriptionNotItsDebugDescriptionAndActsOnNoTerminal() {
        struct ServerError: Error, CustomStringConvertible, CustomDebugStringConvertible {
            var description: String { "server said \u{1B}[2Jno\nsecond line" }
            var debugDescription: String { "bound values: secret-token" }
        }
        let error = StrataError(.io, "write failed", underlying: ServerError(), file: "M/A.swift", line: 1)

        let lines = error.detailedDescription().split(separator: "\n").map(String.init)

        #expect(!error.detailedDescription().contains("secret-token"))
        #expect(lines[1] == #"├─ Cause: server said \u{1B}[2Jno"#)
        #expect(lines[2] == "│  second line")
        #expect(lines.last == "└─ Source location: M/A.swift:1")
    }

    @Test func keysAreQuotedOneWayAndLongOnesAreCut() {
        #expect(StrataError.quoted(key: "user/42") == #""user/42""#)
        #expect(StrataError.quoted(key: "a\"b\nc") == #""a\"b\nc""#)
        let long = String(repeating: "k", count: 500)
        #expect(StrataError.quoted(key: long) == "\"\(String(repeating: "k", count: 200))\"…")
        // One Character of 100,001 scalars (a letter and combining marks) is cut too: before, a cut by Character
        // quoted all of it, 200 KB in every message and log line about the key.
        let marks = "a" + String(repeating: "\u{301}", count: 100_000)
        #expect(marks.count == 1)
        #expect(StrataError.quoted(key: marks) == "\"a\(String(repeating: "\u{301}", count: 199))\"…")
        #expect(StrataError.notFound(key: marks).description.utf8.count < 1_000)
        #expect(StrataError.notFound(key: "x\ny").description == #"StrataError.notFound: No value for key "x\ny""#)
        #expect(StrataError.miss(key: "").code == .invalidArgument)
        #expect(StrataError.miss(key: "a").code == .notFound)
    }

    @Test func aMissQuotesItsKeyWhenItsMessageIsReadAndTakesANewMessage() {
        // Given the miss a store makes for a key, written only when read
        var error = StrataError.miss(key: "a\"b")
        #expect(error.message == #"No value for key "a\"b""#)
        #expect(error.localizedDescription == "notFound: \(error.message)")
        // When its message is set, the new one is the message
        error.message = "gone"
        #expect(error.message == "gone")
        #expect(error.description == "StrataError.notFound: gone")
    }

    @Test func loggingPluginWritesOneLineForAFailure() async throws {
        // Given a source that fails with an error whose cause spans several lines, logged with its message
        let records = Locked<[LogRecord]>([])
        let store = PluginTestStore(["a": 1])
        let cause = StrataError(.io, "disk\nfull", underlying: CocoaError(.fileWriteOutOfSpace))
        store.failNext(StrataError(.network, "upload failed", underlying: cause))
        let source = store.plugins([
            LoggingPlugin(includesValues: true, clock: ManualClock()) { record in records.withLock { $0.append(record) }
            }
        ])

        // When
        _ = try? await source.get(KeyQuery("a"))

        // Then the failure record and every metadata value are one line
        let failure = try #require(records.withLock { $0 }.first { $0.event == .failed })
        #expect(failure.error == "StrataError.network: upload failed")
        #expect(!failure.message.contains("\n"))
        #expect(failure.metadata.values.allSatisfy { !$0.contains("\n") })
    }
}
