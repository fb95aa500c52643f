import Foundation

/// The content of one entry file: the header's fields and the value, side by side in one JSON object, so the
/// index can be rebuilt from the entry files alone.
struct EntryEnvelope<Value: Encodable>: Encodable {
    /// The key and metadata, written as fields of the entry's object.
    var header: EntryHeader
    /// The value.
    var value: Value

    /// The one field the envelope adds to the header's.
    private enum CodingKeys: String, CodingKey {
        case value
    }

    /// Writes the header's fields, then the value, into one object.
    func encode(to encoder: any Encoder) throws {
        try header.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
    }
}

/// The metadata of an entry file without its value: what a write puts beside the value (``EntryEnvelope``) and
/// what rebuilding the index reads.
struct EntryHeader: Codable {
    /// The key, to detect a file that does not belong to the key it was looked up for.
    var key: String
    /// When the value was written, in seconds since 1970 (a number, whatever the date strategy).
    var storedAt: Double
    /// The entry's own maximum age in seconds.
    var maxAge: Double?
    /// When the value stops being fresh, in seconds since 1970; left out of the file when `nil`.
    var freshUntil: Double?
    /// The LRU sequence at the time of writing.
    var sequence: UInt64
    /// The entry's tags, sorted; left out of the file when it has none.
    var tags: [String]?

    /// The index's record of the entry.
    var record: IndexRecord {
        IndexRecord(storedAt: storedAt, maxAge: maxAge, sequence: sequence, freshUntil: freshUntil, tags: tags ?? [])
    }
}

/// The part of an entry file a read needs: the key (to check the file belongs to it) and the value. Decoding
/// skips the metadata, which the index already holds.
struct ValueEnvelope<Value: Decodable>: Decodable {
    var key: String
    var value: Value
}
