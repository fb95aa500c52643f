import Foundation

/// What the persistent layer keeps with a blob: its freshness and the cache directives that matter once it
/// is stale.
///
/// A download's record is written in the blob's own entry (its attributes), so a disk hit reads one file.
/// A `304` or a lifetime extension writes a record to the small freshness store instead, which overrides
/// the blob's own while its ``contentHash`` matches the blob, so the blob is never rewritten for them.
///
/// Binary layout (little-endian, 36 bytes): format (1, value 1), fresh until and lifetime (`Double` bits,
/// 8 + 8), has `stale-if-error` (1) and its value (8), `must-revalidate` (1), `no-cache` (1), content hash
/// (8). Records written as JSON by earlier versions are still read.
package struct FreshnessRecord: Codable, Sendable, Equatable {
    /// When the blob stops being fresh.
    package var freshUntil: Date
    /// The lifetime it was stored with, in seconds (for the extension policies).
    var lifetime: Double
    /// `stale-if-error`, in seconds, if the response had it.
    var staleIfError: Double?
    /// `must-revalidate` or `no-cache`: never serve it stale.
    var mustRevalidate: Bool
    /// `no-cache`: revalidate before every reuse, also after a `304` that does not say otherwise.
    var noCache: Bool
    /// The content hash of the blob version an override belongs to; another version makes it void. Zero in
    /// a blob's own record, which belongs to the blob by construction.
    package var contentHash: UInt64

    private static let format: UInt8 = 1
    private static let length = 36

    func encoded() -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.length)
        bytes.append(Self.format)
        Self.append(freshUntil.timeIntervalSince1970.bitPattern, to: &bytes)
        Self.append(lifetime.bitPattern, to: &bytes)
        bytes.append(staleIfError == nil ? 0 : 1)
        Self.append((staleIfError ?? 0).bitPattern, to: &bytes)
        bytes.append(mustRevalidate ? 1 : 0)
        bytes.append(noCache ? 1 : 0)
        Self.append(contentHash, to: &bytes)
        return Data(bytes)
    }

    /// The longest lifetime a record may hold, in seconds (about 3 × 10¹⁰ years): any longer one, which only a
    /// damaged or forged record can hold, would trap when made a `Duration`.
    static let longestLifetime: Double = 1e18

    /// The record in `data`, binary or legacy JSON; `nil` when it is neither, or when its lifetime is not a
    /// number of seconds a `Duration` can hold.
    package static func decode(_ data: Data) -> FreshnessRecord? {
        guard let record = decodeEitherFormat(data), abs(record.lifetime) <= longestLifetime else { return nil }
        return record
    }

    private static func decodeEitherFormat(_ data: Data) -> FreshnessRecord? {
        guard data.count == length, data.first == format else {
            return try? JSONDecoder().decode(FreshnessRecord.self, from: data)
        }
        return data.withUnsafeBytes { bytes -> FreshnessRecord? in
            func u64(_ offset: Int) -> UInt64 {
                UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            }
            func flag(_ offset: Int) -> UInt8 { bytes.load(fromByteOffset: offset, as: UInt8.self) }
            guard flag(17) <= 1, flag(26) <= 1, flag(27) <= 1 else { return nil }
            let freshUntil = Double(bitPattern: u64(1))
            let lifetime = Double(bitPattern: u64(9))
            guard freshUntil.isFinite, lifetime.isFinite else { return nil }
            return FreshnessRecord(
                freshUntil: Date(timeIntervalSince1970: freshUntil),
                lifetime: lifetime,
                staleIfError: flag(17) == 1 ? Double(bitPattern: u64(18)) : nil,
                mustRevalidate: flag(26) == 1,
                noCache: flag(27) == 1,
                contentHash: u64(28)
            )
        }
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
