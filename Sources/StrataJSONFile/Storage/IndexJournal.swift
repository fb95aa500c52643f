import Foundation

/// The text format of the index: an append-only journal of one record per line.
///
/// ```
/// strata-json-file-index 1
/// P <sequence> <storedAt> <maxAge|-> <base64 key> <checksum>
/// T <sequence> <base64 key> <checksum>
/// R <base64 key> <checksum>
/// C <checksum>
/// ```
///
/// Keys are Base64 (any content, newlines and NUL included, stays on one line); the checksum is the
/// FNV-1a 32-bit hash of the line before it, in hexadecimal, so a damaged line is detected rather than
/// misread. A last line without its newline is the torn tail of an interrupted append and is ignored.
enum IndexJournal {
    /// The first line of every index file.
    static let header = "strata-json-file-index 1"

    /// The result of reading a journal.
    struct Replay {
        /// The live entries.
        var records: [String: IndexRecord] = [:]
        /// How many records the journal holds (a measure of how much compaction would save).
        var recordCount = 0
        /// The highest sequence seen.
        var maxSequence: UInt64 = 0
        /// Whether the file ended in a torn (incomplete) line.
        var hasTornTail = false
    }

    /// Why a journal could not be read.
    struct ParseError: Error, CustomStringConvertible {
        let line: Int
        let reason: String
        var description: String { "line \(line): \(reason)" }
    }

    /// Encodes one record as a line, newline included.
    static func line(for record: JournalRecord) -> Data {
        var text: String
        switch record {
        case .put(let key, let record):
            let maxAge = record.maxAge.map { "\($0)" } ?? "-"
            text = "P \(record.sequence) \(record.storedAt) \(maxAge) \(encode(key))"
        case .touch(let key, let sequence):
            text = "T \(sequence) \(encode(key))"
        case .remove(let key):
            text = "R \(encode(key))"
        case .clear:
            text = "C"
        }
        text += " " + checksum(Array(text.utf8)) + "\n"
        return Data(text.utf8)
    }

    /// The header and one put record per entry, oldest use first: a compacted journal.
    static func snapshot(of records: [String: IndexRecord]) -> Data {
        var data = Data((header + "\n").utf8)
        for (key, record) in records.sorted(by: { $0.value.sequence < $1.value.sequence }) {
            data.append(line(for: .put(key: key, record: record)))
        }
        return data
    }

    /// Replays a journal's bytes into the live entries.
    ///
    /// - Throws: ``ParseError`` for a missing header or a damaged complete line.
    static func replay(_ data: Data) throws -> Replay {
        var replay = Replay()
        let bytes = [UInt8](data)
        var lineNumber = 0
        var start = 0
        while start < bytes.count {
            guard let end = bytes[start...].firstIndex(of: 0x0A) else {
                // An append that the process did not finish: nothing acknowledged is lost.
                replay.hasTornTail = true
                break
            }
            lineNumber += 1
            let line = bytes[start..<end]
            start = end + 1
            if lineNumber == 1 {
                guard String(decoding: line, as: UTF8.self) == header else {
                    throw ParseError(line: 1, reason: "missing header \"\(header)\"")
                }
                continue
            }
            guard let record = parse(line) else { throw ParseError(line: lineNumber, reason: "damaged record") }
            replay.recordCount += 1
            apply(record, to: &replay)
        }
        if lineNumber == 0 { throw ParseError(line: 1, reason: "missing header \"\(header)\"") }
        return replay
    }

    private static func apply(_ record: JournalRecord, to replay: inout Replay) {
        switch record {
        case .put(let key, let record):
            replay.records[key] = record
            replay.maxSequence = max(replay.maxSequence, record.sequence)
        case .touch(let key, let sequence):
            replay.records[key]?.sequence = sequence
            replay.maxSequence = max(replay.maxSequence, sequence)
        case .remove(let key):
            replay.records[key] = nil
        case .clear:
            replay.records.removeAll()
        }
    }

    private static func parse(_ line: ArraySlice<UInt8>) -> JournalRecord? {
        guard let lastSpace = line.lastIndex(of: 0x20) else { return nil }
        let body = line[line.startIndex..<lastSpace]
        guard String(decoding: line[(lastSpace + 1)...], as: UTF8.self) == checksum(body) else { return nil }
        let fields = body.split(separator: 0x20, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        switch (fields.first, fields.count) {
        case ("P", 5):
            guard let sequence = UInt64(fields[1]), let storedAt = Double(fields[2]), let key = decode(fields[4])
            else { return nil }
            let maxAge: Double?
            if fields[3] == "-" {
                maxAge = nil
            } else {
                guard let value = Double(fields[3]) else { return nil }
                maxAge = value
            }
            return .put(key: key, record: IndexRecord(storedAt: storedAt, maxAge: maxAge, sequence: sequence))
        case ("T", 3):
            guard let sequence = UInt64(fields[1]), let key = decode(fields[2]) else { return nil }
            return .touch(key: key, sequence: sequence)
        case ("R", 2):
            guard let key = decode(fields[1]) else { return nil }
            return .remove(key: key)
        case ("C", 1):
            return .clear
        default:
            return nil
        }
    }

    private static func encode(_ key: String) -> String {
        Data(key.utf8).base64EncodedString()
    }

    private static func decode(_ text: String) -> String? {
        guard let data = Data(base64Encoded: text) else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// FNV-1a 32-bit, eight lowercase hexadecimal digits.
    static func checksum(_ bytes: some Sequence<UInt8>) -> String {
        var hash: UInt32 = 0x811c_9dc5
        for byte in bytes {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }
}
