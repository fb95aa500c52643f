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

    struct Record {
        var accessSequence: UInt64
        var lastAccess: Date
    }

    static func encode(_ entries: [EntryIndex.Entry]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + entries.count * recordLength + 8)
        append(magic, to: &bytes)
        append(UInt32(truncatingIfNeeded: entries.count), to: &bytes)
        for entry in entries {
            append(entry.name.high, to: &bytes)
            append(entry.name.low, to: &bytes)
            append(entry.accessSequence, to: &bytes)
            append(entry.lastAccess.timeIntervalSince1970.bitPattern, to: &bytes)
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
                // A sequence no store hands out (a planted record): the entry keeps the order of its write.
                guard u64(offset + 16) < EntryTrailer.sequenceCeiling else { continue }
                records[name] = Record(
                    accessSequence: u64(offset + 16),
                    lastAccess: Date(timeIntervalSince1970: Double(bitPattern: u64(offset + 24)))
                )
            }
            return records
        }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
