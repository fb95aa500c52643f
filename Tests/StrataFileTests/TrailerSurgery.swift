import Foundation
import StrataSupport

@testable import StrataFile

/// Rewrites entry trailers in older layouts, for the tests that read what earlier versions wrote.
enum TrailerSurgery {
    /// A trailer with a key, an ETag and both dates, no attributes and no freshness date.
    static let sample = EntryTrailer(
        key: "key",
        eTag: "\"e\"",
        lastModified: nil,
        payloadSize: 5,
        contentHash: 42,
        writeSequence: 7,
        created: Date(timeIntervalSince1970: 1_000),
        expiresAt: Date(timeIntervalSince1970: 2_000)
    )

    /// The bytes of `trailer` from its version through its fields: its encoding without checksum and footer.
    static func fields(of trailer: EntryTrailer) throws -> [UInt8] {
        Array(try trailer.encoded().dropLast(EntryTrailer.footerLength))
    }

    /// `fields` with their checksum appended: what `EntryTrailer(bytes:)` parses.
    static func sealed(_ fields: [UInt8]) -> [UInt8] {
        var bytes = fields
        withUnsafeBytes(of: fields.withUnsafeBytes { XXHash64.hash($0) }.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Rewrites the trailer of the entry file at `url`: `edit` changes its fields (from the version on, without
    /// checksum), which are sealed and given a footer again.
    static func editTrailer(of url: URL, _ edit: (inout [UInt8]) -> Void) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        let trailerLength = bytes.withUnsafeBytes {
            Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt32.self)))
        }
        let start = bytes.count - 8 - trailerLength
        var fields = Array(bytes[start..<(bytes.count - 16)])
        edit(&fields)
        var trailer = sealed(fields)
        withUnsafeBytes(of: UInt32(trailer.count).littleEndian) { trailer.append(contentsOf: $0) }
        withUnsafeBytes(of: EntryTrailer.magic.littleEndian) { trailer.append(contentsOf: $0) }
        bytes.replaceSubrange(start..., with: trailer)
        try Data(bytes).write(to: url)
    }

    /// Rewrites a version 4 trailer's fields in the version 3 layout: no freshness date.
    static func version3(_ fields: inout [UInt8]) {
        fields[0] = 3
        fields[1] &= 1
        fields.removeSubrange(60..<68)
    }

    /// Rewrites a version 4 trailer's fields in the version 2 layout: no attributes, no freshness date.
    static func version2(_ fields: inout [UInt8]) {
        fields[0] = 2
        fields[1] &= 1
        fields.removeSubrange(56..<68)
    }
}
