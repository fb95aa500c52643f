import Foundation
internal import StrataSupport

/// The file that keeps last-access dates and the recency order across restarts: `.strata-index` in the
/// store's folder.
///
/// Reads change only the in-memory index; the journal is rewritten (an exclusively created temporary file
/// renamed over it, so a link planted at either name is never written through) on
/// ``FileDataSource/removeExpired()``, ``FileDataSource/flush()`` and when the store is released. An entry
/// written after the journal carries a newer write sequence in its own trailer, which wins; a missing or
/// damaged journal costs only the recency of reads since the last save.
///
/// Layout (little-endian): magic `STRJ`, record count (`UInt32`), records of name (16 bytes), access
/// sequence (8), last access (8, `Double` bits), then an xxHash64 of everything before it.
enum AccessJournal {
    static let fileName = ".strata-index"
    /// The longest journal read (8 million entries); a longer file is not a journal.
    static let maximumLength = 16 + 8_000_000 * 32
    private static let magic: UInt32 = 0x4A52_5453  // "STRJ"
    private static let recordLength = 32

    /// One entry's line of the journal.
    struct Record: Equatable {
        var accessSequence: UInt64
        var lastAccess: Date
    }

    /// The journal of the index's entries, most recently used first.
    static func encode(_ entries: [EntryIndex.Entry]) -> [UInt8] {
        encode(entries.map { ($0.name, Record(accessSequence: $0.accessSequence, lastAccess: $0.lastAccess)) })
    }

    /// The journal of `records`, in their order.
    static func encode(_ records: [(name: EntryName, record: Record)]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + records.count * recordLength + 8)
        append(magic, to: &bytes)
        append(UInt32(truncatingIfNeeded: records.count), to: &bytes)
        for (name, record) in records {
            append(name.high, to: &bytes)
            append(name.low, to: &bytes)
            append(record.accessSequence, to: &bytes)
            append(record.lastAccess.timeIntervalSince1970.bitPattern, to: &bytes)
        }
        let checksum = bytes.withUnsafeBytes { XXHash64.hash($0) }
        append(checksum, to: &bytes)
        return bytes
    }

    /// The records of a journal; empty when the bytes are not a whole, undamaged journal.
    static func decode(_ data: [UInt8]) -> [EntryName: Record] {
        data.withUnsafeBytes { bytes in
            guard bytes.count >= 16 else { return [:] }
            func u32(_ offset: Int) -> UInt32 {
                UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            }
            func u64(_ offset: Int) -> UInt64 {
                UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            }
            let count = Int(u32(4))
            guard u32(0) == magic, bytes.count == 8 + count * recordLength + 8 else { return [:] }
            let body = UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - 8)])
            guard XXHash64.hash(body) == u64(bytes.count - 8) else { return [:] }
            var records: [EntryName: Record] = [:]
            records.reserveCapacity(count)
            for index in 0..<count {
                let offset = 8 + index * recordLength
                let name = EntryName(high: u64(offset), low: u64(offset + 8))
                let seconds = Double(bitPattern: u64(offset + 24))
                // A sequence no store opens with, or a time that is not a finite number (a planted or re-sealed
                // record): the entry keeps the order and time of its write.
                guard u64(offset + 16) < EntryTrailer.openingSequenceLimit, seconds.isFinite else { continue }
                records[name] = Record(
                    accessSequence: u64(offset + 16),
                    lastAccess: Date(timeIntervalSince1970: seconds)
                )
            }
            return records
        }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
