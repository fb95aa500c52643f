import Foundation

extension StrataError: CustomStringConvertible, CustomDebugStringConvertible, LocalizedError {
    /// One line: the code, the message and, when a cause says so, its summary and the wait it asked for —
    /// such as `StrataError.unexpectedResponse: GET /users/42 answered 503 (HTTP 503, retry after 2 seconds)`.
    ///
    /// The summary is the first ``ErrorSummarizing`` cause's (an HTTP failure's status), the wait
    /// ``suggestedRetryDelay``. The whole cause and the source location are in ``detailedDescription()``; a log
    /// line or an alert shows this.
    public var description: String { description(ofMessage: message) }

    /// The one-line ``description`` this error has with `message` as its message.
    func description(ofMessage message: String) -> String {
        let details = summaryDetails
        let suffix = details.isEmpty ? "" : " (\(details.joined(separator: ", ")))"
        return "StrataError.\(code): \(Self.oneLine(message))\(suffix)"
    }

    /// The message with its code, for `localizedDescription`.
    public var errorDescription: String? { "\(code): \(Self.oneLine(message))" }

    /// The ``detailedDescription()``, for `String(reflecting:)` and debuggers.
    public var debugDescription: String { detailedDescription() }

    /// A multi-line description: the one-line ``description``, then the chain of causes as a
    /// tree (a cause that is itself a ``StrataError`` is drawn with its own causes) and where the error was made.
    ///
    /// Another error is drawn by its `description`, each of its lines as ``description`` writes a message (its
    /// control characters shown, not acted on); its debug description, which may hold what its author kept out of
    /// the description (PostgreSQL's `PSQLError`: the statement's bound values), is `String(reflecting:)` of
    /// ``underlying``.
    ///
    /// ```text
    /// StrataError.io: Creating the store folder /data/cache failed
    /// ├─ Cause: mkdirat(/data/cache) failed: Not a directory (errno 20)
    /// └─ Source location: StrataFile/FileDataSource+Files.swift:42
    /// ```
    public func detailedDescription() -> String {
        detailedDescriptionLines().joined(separator: "\n")
    }

    private func detailedDescriptionLines() -> [String] {
        var lines = [description]
        if let underlying = underlying as? StrataError {
            let causeLines = underlying.detailedDescriptionLines()
            lines.append("├─ Cause:")
            for (index, line) in causeLines.enumerated() {
                lines.append((index == 0 ? "│  └─ " : "│     ") + line)
            }
        } else if let underlying {
            // The cause's description, not its debug description: PostgreSQL's `PSQLError` keeps the statement's
            // bound values out of the one and puts them in the other.
            let causeLines = String(describing: underlying).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in causeLines.enumerated() {
                lines.append((index == 0 ? "├─ Cause: " : "│  ") + Self.oneLine(String(line)))
            }
        }
        lines.append("└─ Source location: \(file):\(line)")
        return lines
    }

    /// Text that reads as one line, as it is: its line breaks replaced by spaces, and the other characters that act on
    /// a terminal or a log rather than show (`Unicode.Scalar.isTerminalControl`) written as `\u{…}`, so that
    /// no key, value or server's text can add a line to a log, or hide one.
    package static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.isTerminalControl || isLineBreak($0) }) else { return text }
        var line = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            if isLineBreak(scalar) {
                // CR LF is one break
                if scalar != "\n" || previous != "\r" { line.append(" ") }
            } else if scalar.isTerminalControl {
                line.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                line.append(scalar)
            }
        }
        return String(line)
    }

    /// Whether a scalar breaks a line: LF, VT, FF, CR, NEL, and the line and paragraph separators.
    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        (0x0A...0x0D).contains(scalar.value) || scalar.value == 0x85 || scalar.value == 0x2028
            || scalar.value == 0x2029
    }

}
