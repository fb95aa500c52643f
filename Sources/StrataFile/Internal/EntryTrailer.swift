import Foundation
import Strata
internal import StrataSupport

/// The metadata written after an entry's bytes, so one `read` of the file returns both and a downloaded
/// file can be moved into the store with its metadata appended instead of its bytes copied.
///
/// Layout (little-endian), after `payloadSize` bytes of data:
///
/// | field | bytes |
/// |---|---|
/// | version (4), flags (bit 0: has expiry, bit 1: has fresh-until, bit 2: never served stale), reserved | 1, 1, 2 |
/// | key length, ETag length, Last-Modified length (`UInt32.max` = none) | 4, 4, 4 |
/// | payload size, content checksum (`ContentChecksum`), write sequence | 8, 8, 8 |
/// | created, expires (seconds since 1970 as `Double` bits) | 8, 8 |
/// | attributes length (`UInt32.max` = none) | 4 |
/// | fresh until (seconds since 1970 as `Double` bits; 0 without bit 1) | 8 |
/// | tags length (version 5 only; `UInt32.max` = none) | 4 |
/// | key, ETag, Last-Modified (UTF-8), attributes, tags (version 5: UTF-8, joined by newlines) | variable |
/// | checksum of everything above in the trailer (xxHash64) | 8 |
/// | trailer length (from version through checksum) | 4 |
/// | magic `STRF` | 4 |
struct EntryTrailer: Equatable {
    static let magic: UInt32 = 0x4652_5453  // "STRF" read as little-endian
    /// 4: version 3 plus the date the value stops being fresh. Versions 3 (no fresh-until field) and 2 (no
    /// attributes field either) are still read; version 1 (an xxHash64 of the data instead of a
    /// `ContentChecksum`) reads as damaged: a miss, and the file is removed. A sealed trailer of a later version than
    /// ``taggedVersion`` is a later Strata's (`EntryFileProblem.newer`): a miss, and the file is left as it is. So a
    /// later change of the layout takes a new version, not a new flag bit: a renewal writes only the bits it knows,
    /// and an earlier build renewing an entry would drop a bit it does not.
    ///
    /// An entry with tags is written as version 5 (``taggedVersion``): version 4 plus its tags. An entry without
    /// tags stays version 4, so stores that never tag an entry stay readable by versions that know 4 only.
    static let version: UInt8 = 4
    /// 5: version 4 plus the entry's tags.
    static let taggedVersion: UInt8 = 5
    /// The fixed part of a version 4 trailer; version 3's ends before the fresh-until date, version 2's before
    /// the attributes length.
    static let fixedLength = 68
    /// The fixed part of a version 5 trailer: version 4's and the tags length.
    private static let fixedLengthVersion5 = 72
    private static let fixedLengthVersion3 = 60
    private static let fixedLengthVersion2 = 56
    /// The most bytes of attributes an entry carries.
    static let maxAttributesLength = 4096
    /// The checksum, the trailer length and the magic.
    static let footerLength = 16
    /// The shortest trailer of any readable version, footer included.
    static let minimumLength = fixedLengthVersion2 + footerLength
    /// The longest trailer, footer included (16 MiB): a write whose key and metadata take more is refused, so a
    /// longer one was not written by a store, and opening a store never reads more than this of a planted file.
    static let maximumLength = 16 << 20
    /// The largest payload (1 TiB): a write of more is refused, so a trailer that claims more was not written by
    /// a store, and the sizes of a store's entries add up without overflowing.
    static let maximumPayloadSize = 1 << 40
    /// The sequences a store hands out stay below 2^62 (more writes and reads than any store's life): a trailer
    /// with a higher one was not written by a store, and counting on cannot overflow.
    static let sequenceCeiling: UInt64 = 1 << 62
    /// The sequences a store opens with stay below 2^61: a trailer or an access record at or above it is damage
    /// when the store loads, so the 2^61 numbers from there to ``sequenceCeiling`` are left for the store to hand
    /// out, and every trailer it writes parses again.
    static let openingSequenceLimit: UInt64 = 1 << 61
    private static let noString = UInt32.max

    var key: String
    var eTag: String?
    var lastModified: String?
    var payloadSize: Int
    var contentHash: UInt64
    var writeSequence: UInt64
    var created: Date
    var expiresAt: Date?
    var freshUntil: Date?
    var attributes: Data?
    /// The groups of the entry (``Strata/EntryMetadata/tags``), in the order written; none of them holds a newline.
    var tags: [String] = []
    /// Whether the entry must never be served stale (``Strata/EntryMetadata/forbidsServingStale``): flag bit 2, which
    /// readers before it ignore.
    var forbidsServingStale = false

    /// The trailer's bytes, to write after the payload.
    ///
    /// - Throws: ``Strata/StrataError/Code/invalidArgument`` when the key and metadata make a trailer longer
    ///   than ``maximumLength``.
    func encoded() throws(StrataError) -> [UInt8] {
        let keyBytes = Array(key.utf8)
        let eTagBytes = eTag.map { Array($0.utf8) }
        let lastModifiedBytes = lastModified.map { Array($0.utf8) }
        let tagBytes = tags.isEmpty ? nil : Array(TagList.joined(tags).utf8)
        // Each length fits the trailer's `UInt32` field only once it is known to be short enough: a 4 GiB key
        // trapped in the conversion before the length check below.
        let lengths = [keyBytes.count, eTagBytes?.count, lastModifiedBytes?.count, attributes?.count, tagBytes?.count]
        if let longest = lengths.compactMap({ $0 }).max(), longest > Self.maximumLength {
            throw tooLong(byteCount: longest)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(
            Self.fixedLength + keyBytes.count + (eTagBytes?.count ?? 0) + (lastModifiedBytes?.count ?? 0)
                + (attributes?.count ?? 0) + Self.footerLength
        )
        bytes.append(tagBytes == nil ? Self.version : Self.taggedVersion)
        bytes.append((expiresAt == nil ? 0 : 1) | (freshUntil == nil ? 0 : 2) | (forbidsServingStale ? 4 : 0))
        bytes.append(contentsOf: [0, 0])
        Self.append(UInt32(keyBytes.count), to: &bytes)
        Self.append(eTagBytes.map { UInt32($0.count) } ?? Self.noString, to: &bytes)
        Self.append(lastModifiedBytes.map { UInt32($0.count) } ?? Self.noString, to: &bytes)
        Self.append(UInt64(payloadSize), to: &bytes)
        Self.append(contentHash, to: &bytes)
        Self.append(writeSequence, to: &bytes)
        Self.append(created.timeIntervalSince1970.bitPattern, to: &bytes)
        Self.append((expiresAt?.timeIntervalSince1970 ?? 0).bitPattern, to: &bytes)
        Self.append(attributes.map { UInt32($0.count) } ?? Self.noString, to: &bytes)
        Self.append((freshUntil?.timeIntervalSince1970 ?? 0).bitPattern, to: &bytes)
        if let tagBytes { Self.append(UInt32(tagBytes.count), to: &bytes) }
        bytes.append(contentsOf: keyBytes)
        bytes.append(contentsOf: eTagBytes ?? [])
        bytes.append(contentsOf: lastModifiedBytes ?? [])
        bytes.append(contentsOf: attributes ?? Data())
        bytes.append(contentsOf: tagBytes ?? [])
        let checksum = bytes.withUnsafeBytes { XXHash64.hash($0) }
        Self.append(checksum, to: &bytes)
        Self.append(UInt32(truncatingIfNeeded: bytes.count), to: &bytes)
        Self.append(Self.magic, to: &bytes)
        guard bytes.count <= Self.maximumLength else { throw tooLong(byteCount: bytes.count) }
        return bytes
    }

    /// The error for a key and metadata that take `byteCount` bytes, more than ``maximumLength``.
    private func tooLong(byteCount: Int) -> StrataError {
        StrataError(
            .invalidArgument,
            "The key and metadata of \(key.prefix(64))… take \(byteCount) bytes; an entry's may take \(Self.maximumLength)"
        )
    }

    /// The length of the trailer at the end of a file, read from its last 8 bytes; `nil` when they are not
    /// a Strata footer.
    static func trailerLength(footer: UnsafeRawBufferPointer) -> Int? {
        guard footer.count >= 8 else { return nil }
        let end = footer.count
        guard UInt32(littleEndian: footer.loadUnaligned(fromByteOffset: end - 4, as: UInt32.self)) == magic else {
            return nil
        }
        let length = Int(UInt32(littleEndian: footer.loadUnaligned(fromByteOffset: end - 8, as: UInt32.self)))
        guard length >= fixedLengthVersion2 + 8, length + 8 <= maximumLength else { return nil }
        return length
    }

    /// Whether `bytes` (a trailer from version through checksum) have a length a store writes and end in the
    /// checksum of the bytes before it: the proof that a store wrote them, whatever their version.
    static func isSealed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count >= Self.fixedLengthVersion2 + 8, count + 8 <= Self.maximumLength else { return false }
        let stored = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
        return XXHash64.hash(UnsafeRawBufferPointer(rebasing: bytes[0..<(count - 8)])) == stored
    }

    /// Parses a trailer whose bytes (from version through checksum) are `bytes`; `nil` when it is damaged.
    init?(bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        guard Self.isSealed(bytes) else { return nil }
        let version = bytes[0]
        let fixedLength: Int
        switch version {
        case Self.taggedVersion: fixedLength = Self.fixedLengthVersion5
        case Self.version: fixedLength = Self.fixedLength
        case 3: fixedLength = Self.fixedLengthVersion3
        case 2: fixedLength = Self.fixedLengthVersion2
        default: return nil
        }
        guard count >= fixedLength + 8 else { return nil }
        func u32(_ offset: Int) -> UInt32 {
            UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }
        func u64(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        let keyLength = Int(u32(4))
        let eTagLength = u32(8)
        let lastModifiedLength = u32(12)
        let eTagCount = eTagLength == Self.noString ? 0 : Int(eTagLength)
        let lastModifiedCount = lastModifiedLength == Self.noString ? 0 : Int(lastModifiedLength)
        let attributesLength = version == 2 ? Self.noString : u32(56)
        let attributesCount = attributesLength == Self.noString ? 0 : Int(attributesLength)
        // A version 5 trailer always has tags: a tagless entry is written as version 4.
        let tagsCount = version == Self.taggedVersion ? Int(u32(68)) : 0
        if version == Self.taggedVersion, tagsCount == 0 || u32(68) == Self.noString { return nil }
        // The lengths come from the file: add them with overflow checks.
        var total = fixedLength
        for length in [keyLength, eTagCount, lastModifiedCount, attributesCount, tagsCount, 8] {
            let (sum, overflow) = total.addingReportingOverflow(length)
            guard !overflow else { return nil }
            total = sum
        }
        guard total == count else { return nil }
        guard let payloadSize = Int(exactly: u64(16)), payloadSize <= Self.maximumPayloadSize,
            u64(32) < Self.sequenceCeiling
        else { return nil }
        let createdSeconds = Double(bitPattern: u64(40))
        let expirySeconds = bytes[1] & 1 == 1 ? Double(bitPattern: u64(48)) : nil
        let freshSeconds = version >= 4 && bytes[1] & 2 == 2 ? Double(bitPattern: u64(60)) : nil
        // A time that is not a finite number is damage: NaN or infinity would make an entry that never expires.
        guard createdSeconds.isFinite, expirySeconds?.isFinite ?? true, freshSeconds?.isFinite ?? true else {
            return nil
        }
        self.payloadSize = payloadSize
        contentHash = u64(24)
        writeSequence = u64(32)
        created = Date(timeIntervalSince1970: createdSeconds)
        expiresAt = expirySeconds.map { Date(timeIntervalSince1970: $0) }
        freshUntil = freshSeconds.map { Date(timeIntervalSince1970: $0) }
        forbidsServingStale = version >= 4 && bytes[1] & 4 == 4
        self.tags = []
        var offset = fixedLength
        func string(_ length: Int) -> String {
            defer { offset += length }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
        }
        key = string(keyLength)
        eTag = eTagLength == Self.noString ? nil : string(eTagCount)
        lastModified = lastModifiedLength == Self.noString ? nil : string(lastModifiedCount)
        attributes =
            attributesLength == Self.noString
            ? nil : Data(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + attributesCount)]))
        offset += attributesCount
        if tagsCount > 0 {
            tags = TagList.split(string(tagsCount))
        }
    }

    init(
        key: String,
        eTag: String?,
        lastModified: String?,
        payloadSize: Int,
        contentHash: UInt64,
        writeSequence: UInt64,
        created: Date,
        expiresAt: Date?,
        freshUntil: Date? = nil,
        attributes: Data? = nil,
        tags: [String] = []
    ) {
        self.key = key
        self.eTag = eTag
        self.lastModified = lastModified
        self.payloadSize = payloadSize
        self.contentHash = contentHash
        self.writeSequence = writeSequence
        self.created = created
        self.expiresAt = expiresAt
        self.freshUntil = freshUntil
        self.attributes = attributes
        self.tags = tags
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
