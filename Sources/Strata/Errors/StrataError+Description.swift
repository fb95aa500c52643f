import Foundation

extension StrataError: CustomStringConvertible, CustomDebugStringConvertible, LocalizedError {
    /// One line: the code, the message and, when a cause says so, its summary and the wait it asked for —
    /// such as `StrataError.unexpectedResponse: GET /users/42 answered 503 (HTTP 503, retry after 2 seconds)`.
    ///
    /// The summary is the first ``ErrorSummarizing`` cause's (an HTTP failure's status), the wait
    /// ``suggestedRetryDelay``. The whole cause and the source location are in ``detailedDescription()``; a log
    /// line or an alert shows this.
    public var description: String {
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
            let causeLines = String(reflecting: underlying).split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in causeLines.enumerated() {
                lines.append((index == 0 ? "├─ Cause: " : "│  ") + line)
            }
        }
        lines.append("└─ Source location: \(file):\(line)")
        return lines
    }

    /// Text with its line breaks replaced by spaces, so that a message always reads as one line.
    static func oneLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return String(text.map { $0.isNewline ? " " : $0 })
    }
}
