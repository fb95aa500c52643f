import Foundation

/// What the index knows of one entry: enough to answer expiry, LRU order and listings without opening
/// the entry's file.
struct IndexRecord: Equatable {
    /// When the value was written, in seconds since 1970.
    var storedAt: Double

    /// The entry's own maximum age in seconds; `nil` defers to the configuration's default.
    var maxAge: Double?

    /// The entry's last use (write or read); higher is more recent.
    var sequence: UInt64

    /// When the value stops being fresh by its source's rules, in seconds since 1970; `nil` when its source
    /// gave none (and in journals written before the field existed).
    var freshUntil: Double? = nil

    /// The entry's tags (``Strata/EntryMetadata/tags``), sorted; empty when it has none (and in journals written
    /// before the field existed).
    var tags: [String] = []

    /// The entry file's length in bytes (its JSON and seal), what the store counts against its size limit; `nil` in
    /// journals written before the field existed, until the store measures the file when it opens.
    var size: Int? = nil

    /// The bytes the index counts for the entry under `key` against the store's `maximumMetadataSize`: the key's and
    /// the tags' UTF-8 bytes, and 64 for the record's numbers.
    func metadataSize(key: String) -> Int {
        tags.reduce(64 + key.utf8.count) { $0 + $1.utf8.count }
    }

    /// Whether every time and age is a finite number, and so is the expiry they make: a record that says NaN or
    /// infinity, or a date and an age whose sum is not finite (`1e308 1e308`; a hand-edited line or file whose
    /// checksum was made again) is damage, not an entry that never expires. The store never writes such a sum: it
    /// derives the age from a finite expiry.
    var hasFiniteTimes: Bool {
        storedAt.isFinite && (maxAge.map { $0.isFinite && (storedAt + $0).isFinite } ?? true)
            && (freshUntil?.isFinite ?? true)
    }
}

/// One line of the index journal.
enum JournalRecord: Equatable {
    /// An entry was written.
    case put(key: String, record: IndexRecord)
    /// An entry was read: its new LRU sequence.
    case touch(key: String, sequence: UInt64)
    /// An entry was removed.
    case remove(key: String)
    /// Every entry was removed.
    case clear
}
