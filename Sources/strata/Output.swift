import Foundation
import Strata

/// Writing to standard output and error, tables, and the formats of sizes and dates.
enum Output {
    /// The `errno` of the first write to standard output that failed (a full disk, a closed descriptor, a reader
    /// that has gone while `SIGPIPE` is ignored), `nil` while every write succeeded; nothing more is written there
    /// after one fails, and the tool then exits with status 1 (``StrataTool/run(_:)``).
    static let outputFailure = Locked<Int32?>(nil)

    /// Writes a line to standard output, unless a write there has failed.
    static func line(_ text: String = "") {
        outputFailure.withLock { failure in
            guard failure == nil else { return }
            failure = writeAll(text + "\n", to: STDOUT_FILENO)
        }
    }

    /// Writes a line to standard error; a failure there is ignored (there is nowhere left to say it).
    static func error(_ text: String) {
        _ = writeAll(text + "\n", to: STDERR_FILENO)
    }

    /// Writes every byte of `text` to `descriptor` with `write(2)`, retrying an interrupted call: `nil`, or the
    /// `errno` of the write that failed. Foundation's `FileHandle.write(_:)` traps on a failure instead.
    private static func writeAll(_ text: String, to descriptor: Int32) -> Int32? {
        var text = text
        return text.withUTF8 { bytes -> Int32? in
            guard let base = bytes.baseAddress else { return nil }
            var written = 0
            while written < bytes.count {
                let result = write(descriptor, base + written, bytes.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += result
            }
            return nil
        }
    }

    /// Prints a value as pretty, key-sorted JSON, every character a terminal acts on escaped.
    static func json(_ value: JSONValue) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        line(escapingControls(String(decoding: data, as: UTF8.self)))
    }

    /// Encoded JSON with the characters a terminal acts on that the encoder leaves as they are (DEL, the C1 controls
    /// such as the one-character CSI U+009B, and the bidirectional overrides) written as `\uXXXX`: they occur only
    /// inside strings, where the escape is the same character to a JSON reader. (The encoder escapes the C0 controls
    /// itself; the line breaks and spaces outside strings are its layout.)
    static func escapingControls(_ json: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard scalar.value >= 0x7F, scalar.isTerminalControl else {
                escaped.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            escaped.append(
                contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars
            )
        }
        return String(escaped)
    }

    /// Prints rows under a header with aligned columns; columns in `rightAligned` (numbers) align right.
    static func table(_ header: [String], _ rows: [[String]], rightAligned: Set<Int> = []) {
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func format(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                if rightAligned.contains(column) { return padding + cell }
                return column == cells.count - 1 ? cell : cell + padding
            }.joined(separator: "  ")
        }
        line(format(header))
        for row in rows { line(format(row)) }
    }

    /// `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return value < 0 ? "-" + result : result
    }

    /// `512 B`, `4.0 KB`, `1.2 MB` (binary multiples).
    static func size(_ bytes: Int) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes)
        for unit in ["KB", "MB", "GB", "TB"] {
            value /= 1024
            if value < 1024 || unit == "TB" {
                let tenths = (value * 10).rounded() / 10
                return "\(tenths) \(unit)"
            }
        }
        return "\(bytes) B"
    }

    /// ISO 8601 in UTC, for `--json`: `2024-05-01T12:00:00Z`.
    static func isoDate(_ date: Date?) -> JSONValue {
        date.map { .string($0.formatted(.iso8601)) } ?? .null
    }

    /// `2024-05-01 12:00:00` (UTC) for tables, `-` for none.
    static func date(_ date: Date?) -> String {
        guard let date else { return "-" }
        return String(date.formatted(.iso8601).replacingOccurrences(of: "T", with: " ").dropLast())
    }

    /// A key made safe for one table cell: ``plain(_:)``, at most `limit` Unicode scalars.
    static func cell(_ text: String?, limit: Int = 60) -> String {
        guard let text else { return "-" }
        let safe = plain(text)
        guard safe.prefixForMessage(limit).isCut else { return safe }
        return safe.prefixForMessage(limit - 1).text + "…"
    }

    /// Text from a store or a server (a key, an ETag, an error a server's body went into) made safe for a terminal:
    /// every control character shown as `?` — the C0 and C1 controls, which a terminal may take as the start of an
    /// escape sequence (CSI is one byte in C1), and the bidirectional overrides and isolates, which reorder what
    /// follows them on screen.
    static func plain(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.isTerminalControl ? "?" : $0 }))
    }

    /// A folder as one argument of a command to paste into a POSIX shell: in single quotes (an embedded `'` as
    /// `'\''`), after `--` when it starts with `-`, so that the tool takes it as the folder, not an option.
    static func shellArgument(_ folder: String) -> String {
        // By Unicode scalars: a `'` followed by a combining mark is one Character, which a replacement by Characters
        // passes over, leaving the quote open for whatever follows.
        var scalars = String.UnicodeScalarView()
        for scalar in folder.unicodeScalars {
            if scalar == "'" { scalars.append(contentsOf: #"'\''"#.unicodeScalars) } else { scalars.append(scalar) }
        }
        let quoted = "'" + String(scalars) + "'"
        return folder.hasPrefix("-") ? "-- " + quoted : quoted
    }

    /// A store as JSON: its kind, folder and role (`null` when no composition is recognised).
    static func store(_ store: Store) -> JSONValue {
        .object([
            "kind": .string(store.kind), "path": .string(store.url.path),
            "role": .optional(store.role?.rawValue),
        ])
    }

    /// The first line of every table output.
    static func storeLine(_ store: Store) {
        let kind =
            switch store.kind {
            case "file": "file store"
            case "outbox":
                "offline outbox, its records in \(plain(store.url.lastPathComponent))/; keys are write sequence numbers"
            default: "JSON-file store"
            }
        line("Store: \(plain(store.displayURL.path)) (\(kind)\(store.role.map { ": " + $0.label } ?? ""))")
    }
}
