import Foundation

/// Writing to standard output and error, tables, and the formats of sizes and dates.
enum Output {
    /// Writes a line to standard output.
    static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes a line to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Prints a value as pretty, key-sorted JSON.
    static func json(_ value: JSONValue) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        line(String(decoding: data, as: UTF8.self))
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

    /// A key made safe for one table cell: control characters shown as `?`, at most 60 characters.
    static func cell(_ text: String?, limit: Int = 60) -> String {
        guard let text else { return "-" }
        var safe = String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }
            )
        )
        if safe.count > limit { safe = String(safe.prefix(limit - 1)) + "…" }
        return safe
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
            case "outbox": "offline outbox; keys are write sequence numbers"
            default: "JSON-file store"
            }
        line("Store: \(store.url.path) (\(kind)\(store.role.map { ": " + $0.label } ?? ""))")
    }
}
