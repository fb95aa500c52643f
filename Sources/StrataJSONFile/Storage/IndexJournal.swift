import Foundation
internal import StrataSupport

/// The text format of the index: an append-only journal of one record per line.
///
/// ```
/// strata-json-file-index 1
/// P <sequence> <storedAt> <maxAge|-> <base64 key> [<freshUntil|-> [<base64 tags|-> [<size>]]] <checksum>
/// T <sequence> <base64 key> <checksum>
/// R <base64 key> <checksum>
/// C <checksum>
/// ```
///
/// A put's `freshUntil` (seconds since 1970) is written only when the entry has one, so a journal without it
/// (any written before it existed) reads as before. Its tags, when it has some, follow as the Base64 of the
/// tags joined by newlines (a tag holds no newline; `-` stands for an absent freshness date before them). A put
/// written since the store counts bytes ends with the entry file's size, in decimal, `-` standing for an absent
/// freshness date or tags before it; a journal's puts without one are measured when the store opens.
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
            if let freshUntil = record.freshUntil {
                text += " \(freshUntil)"
            } else if !record.tags.isEmpty || record.size != nil {
                text += " -"
            }
            if !record.tags.isEmpty {
                text += " " + encode(TagList.joined(record.tags))
            } else if record.size != nil {
                text += " -"
            }
            if let size = record.size { text += " \(size)" }
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
        // The table is made as large as the put lines need once, rather than grown (and rehashed) as they come: no
        // more than a put line of the shortest form could fill (22 bytes), and no more than a million entries, so a
        // planted journal of short lines that begin with `P` reserves little.
        replay.records.reserveCapacity(min(putLineCount(bytes), bytes.count / 22, 1 << 20))
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

    /// How many lines of `bytes` begin with `P`: at most that many entries replay.
    private static func putLineCount(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var count = 0
            var previous: UInt8 = 0x0A
            for byte in buffer {
                if previous == 0x0A, byte == 0x50 { count += 1 }
                previous = byte
            }
            return count
        }
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
        // The checksum is compared as a number: no string is made for it (opening replays every line).
        guard let stored = hexChecksum(line[(lastSpace + 1)...]), stored == checksumValue(body) else { return nil }
        // Fields are cut by hand (at most eight): `split` would allocate an array for every line.
        var fields: [ArraySlice<UInt8>] = []
        fields.reserveCapacity(8)
        var fieldStart = body.startIndex
        for index in body.indices where body[index] == 0x20 {
            fields.append(body[fieldStart..<index])
            fieldStart = index + 1
            if fields.count > 7 { return nil }
        }
        fields.append(body[fieldStart..<body.endIndex])
        guard fields[0].count == 1, let letter = fields[0].first else { return nil }
        switch (letter, fields.count) {
        case (0x50, 5...8):  // "P", with or without its freshness date, tags and size
            guard let sequence = number(fields[1]), let storedAt = Double(text(fields[2])), let key = decode(fields[4])
            else { return nil }
            var freshUntil: Double?
            if fields.count >= 6, !(fields.count >= 7 && isAbsent(fields[5])) {
                guard let value = Double(text(fields[5])) else { return nil }
                freshUntil = value
            }
            var tags: [String] = []
            if fields.count >= 7, !(fields.count == 8 && isAbsent(fields[6])) {
                guard let joined = decode(fields[6]), !joined.isEmpty else { return nil }
                tags = TagList.split(joined)
            }
            var size: Int?
            if fields.count == 8 {
                // No entry file the store writes is larger: a larger size was not written by it.
                guard let value = number(fields[7]), value <= JSONFileStorage.maximumFileSize else { return nil }
                size = Int(value)
            }
            let maxAge: Double?
            if isAbsent(fields[3]) {
                maxAge = nil
            } else {
                guard let value = Double(text(fields[3])) else { return nil }
                maxAge = value
            }
            let record = IndexRecord(
                storedAt: storedAt,
                maxAge: maxAge,
                sequence: sequence,
                freshUntil: freshUntil,
                tags: tags,
                size: size
            )
            return record.hasFiniteTimes ? .put(key: key, record: record) : nil
        case (0x54, 3):  // "T"
            guard let sequence = number(fields[1]), let key = decode(fields[2]) else { return nil }
            return .touch(key: key, sequence: sequence)
        case (0x52, 2):  // "R"
            guard let key = decode(fields[1]) else { return nil }
            return .remove(key: key)
        case (0x43, 1):  // "C"
            return .clear
        default:
            return nil
        }
    }

    /// Whether a field is `-`, an absent value.
    private static func isAbsent(_ field: ArraySlice<UInt8>) -> Bool {
        field.elementsEqual([0x2D])
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// A decimal `UInt64` (digits only, as the journal writes it); `nil` when empty, not digits or too large.
    private static func number(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - 0x30))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// The value of exactly eight lowercase hexadecimal digits, as ``checksum(_:)`` writes them.
    private static func hexChecksum(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        guard bytes.count == 8 else { return nil }
        var value: UInt32 = 0
        for byte in bytes {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// A key written by ``encode(_:)``: standard base64 with padding, of valid UTF-8.
    private static func decode(_ field: ArraySlice<UInt8>) -> String? {
        guard field.count % 4 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(field.count / 4 * 3)
        var index = field.startIndex
        while index < field.endIndex {
            let quad = field[index..<(index + 4)]
            index += 4
            let isLast = index == field.endIndex
            var values: UInt32 = 0
            var padding = 0
            for (position, byte) in quad.enumerated() {
                let value: UInt8
                switch byte {
                case 0x41...0x5A: value = byte - 0x41  // A-Z
                case 0x61...0x7A: value = byte - 0x61 + 26  // a-z
                case 0x30...0x39: value = byte - 0x30 + 52  // 0-9
                case 0x2B: value = 62  // +
                case 0x2F: value = 63  // /
                case 0x3D where isLast && position >= 2:  // = (padding, at the end only)
                    padding += 1
                    value = 0
                default: return nil
                }
                if padding > 0, byte != 0x3D { return nil }
                values = values << 6 | UInt32(value)
            }
            bytes.append(UInt8(truncatingIfNeeded: values >> 16))
            if padding < 2 { bytes.append(UInt8(truncatingIfNeeded: values >> 8)) }
            if padding < 1 { bytes.append(UInt8(truncatingIfNeeded: values)) }
        }
        // `String(validating:as:)` needs macOS 15 / iOS 18: decoding repairs invalid UTF-8, so the bytes are valid
        // exactly when the repaired string reads them back unchanged.
        let decoded = String(decoding: bytes, as: UTF8.self)
        return decoded.utf8.elementsEqual(bytes) ? decoded : nil
    }

    private static func encode(_ key: String) -> String {
        Data(key.utf8).base64EncodedString()
    }

    /// FNV-1a 32-bit, eight lowercase hexadecimal digits.
    static func checksum(_ bytes: some Sequence<UInt8>) -> String {
        let text = String(checksumValue(bytes), radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }

    /// FNV-1a 32-bit.
    static func checksumValue(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for byte in bytes {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hash
    }
}
