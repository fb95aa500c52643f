import Foundation

/// What the persistent layer keeps with a blob: its freshness and the cache directives that matter once it
/// is stale.
///
/// A download's record is written in the blob's own entry (its attributes), so a disk hit reads one file.
/// A `304` or a lifetime extension renews the record in place (the entry's metadata only, never the blob's bytes),
/// and only while the entry still holds the version the record names (its ``contentHash``) and the record the renewal
/// was made from.
///
/// Binary layout (little-endian, 36 bytes): format (1, value 1), fresh until and lifetime (`Double` bits,
/// 8 + 8), has `stale-if-error` (1) and its value (8), `must-revalidate` (1), `no-cache` (1), content hash
/// (8). A record with `stale-while-revalidate` is format 2 (45 bytes): the same, then its value (8) and a
/// flag (1) that is always 1. A record of a response that varied on request fields is format 3: the 45 bytes of
/// format 2, the flag saying whether the window is there, then the ``BlobVariant`` (``BlobVariant/encoded()``).
/// Records written as JSON by earlier versions are still read.
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
    /// `stale-while-revalidate`, in seconds, if the response had it.
    var staleWhileRevalidate: Double? = nil
    /// The request fields the response varied on and a digest of the values its request sent in them: the blob
    /// answers only a request that sends the same values; `nil` for a response that varies on none.
    var variant: BlobVariant? = nil

    private static let format: UInt8 = 1
    private static let length = 36
    private static let formatWithRevalidationWindow: UInt8 = 2
    private static let lengthWithRevalidationWindow = 45
    private static let formatWithVariant: UInt8 = 3

    /// How long past ``freshUntil`` the blob may be served while it is revalidated in the background (RFC 5861
    /// `stale-while-revalidate`); `nil` without one, with one of zero seconds (a renewal that dropped it), or under
    /// `must-revalidate` / `no-cache`.
    var revalidationWindow: Duration? {
        guard !mustRevalidate, let staleWhileRevalidate, staleWhileRevalidate > 0 else { return nil }
        return .seconds(staleWhileRevalidate)
    }

    /// Whether, at `now`, the stale blob may be served at once while it is revalidated in the background.
    func servesWhileRevalidating(at now: Date) -> Bool {
        guard let window = revalidationWindow else { return false }
        return now < freshUntil.addingTimeInterval(window.timeInterval)
    }

    /// Whether, at `now`, the stale blob may stand in for a failed revalidation by its own `stale-if-error`;
    /// `nil` when the response gave none.
    func servesIfError(at now: Date) -> Bool? {
        guard let staleIfError else { return nil }
        return !mustRevalidate && now < freshUntil.addingTimeInterval(staleIfError)
    }

    /// The record as written: binary, its lifetime and windows within ``longestLifetime`` (a layer's "forever",
    /// `.seconds(Int64.max)`, is written as about 3 × 10¹⁰ years, which ``decode(_:)`` reads back).
    func encoded() -> Data {
        let clamp = { (seconds: Double) in min(max(seconds, -Self.longestLifetime), Self.longestLifetime) }
        var record = self
        record.lifetime = clamp(lifetime)
        record.staleIfError = staleIfError.map(clamp)
        record.staleWhileRevalidate = staleWhileRevalidate.map(clamp)
        return record.encodedAsIs()
    }

    private func encodedAsIs() -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.lengthWithRevalidationWindow)
        let format = staleWhileRevalidate == nil ? Self.format : Self.formatWithRevalidationWindow
        bytes.append(variant == nil ? format : Self.formatWithVariant)
        Self.append(freshUntil.timeIntervalSince1970.bitPattern, to: &bytes)
        Self.append(lifetime.bitPattern, to: &bytes)
        bytes.append(staleIfError == nil ? 0 : 1)
        Self.append((staleIfError ?? 0).bitPattern, to: &bytes)
        bytes.append(mustRevalidate ? 1 : 0)
        bytes.append(noCache ? 1 : 0)
        Self.append(contentHash, to: &bytes)
        if let staleWhileRevalidate {
            Self.append(staleWhileRevalidate.bitPattern, to: &bytes)
            bytes.append(1)
        } else if variant != nil {
            Self.append(0, to: &bytes)
            bytes.append(0)
        }
        if let variant { bytes += variant.encoded() }
        return Data(bytes)
    }

    /// The longest lifetime a record may hold, in seconds (about 3 × 10¹⁰ years): any longer one, which only a
    /// damaged or forged record can hold, would trap when made a `Duration`.
    static let longestLifetime: Double = 1e18

    /// The record in `data`, binary or legacy JSON; `nil` when it is neither, or when its lifetime or a window is
    /// not a number of seconds a `Duration` can hold.
    package static func decode(_ data: Data) -> FreshnessRecord? {
        guard let record = decodeEitherFormat(data), abs(record.lifetime) <= longestLifetime else { return nil }
        for window in [record.staleIfError, record.staleWhileRevalidate] {
            guard let window else { continue }
            guard window.isFinite, abs(window) <= longestLifetime else { return nil }
        }
        return record
    }

    private static func decodeEitherFormat(_ data: Data) -> FreshnessRecord? {
        let isVaried = data.count > lengthWithRevalidationWindow && data.first == formatWithVariant
        let isBinary =
            (data.count == length && data.first == format)
            || (data.count == lengthWithRevalidationWindow && data.first == formatWithRevalidationWindow) || isVaried
        guard isBinary else {
            return try? JSONDecoder().decode(FreshnessRecord.self, from: data)
        }
        return data.withUnsafeBytes { bytes -> FreshnessRecord? in
            func u64(_ offset: Int) -> UInt64 {
                UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            }
            func flag(_ offset: Int) -> UInt8 { bytes.load(fromByteOffset: offset, as: UInt8.self) }
            guard flag(17) <= 1, flag(26) <= 1, flag(27) <= 1 else { return nil }
            let hasRevalidationWindow: Bool
            var variant: BlobVariant?
            if isVaried {
                guard flag(44) <= 1, let decoded = BlobVariant.decode(bytes[lengthWithRevalidationWindow...]) else {
                    return nil
                }
                hasRevalidationWindow = flag(44) == 1
                variant = decoded
            } else {
                hasRevalidationWindow = bytes.count == lengthWithRevalidationWindow
                guard !hasRevalidationWindow || flag(44) == 1 else { return nil }
            }
            let freshUntil = Double(bitPattern: u64(1))
            let lifetime = Double(bitPattern: u64(9))
            guard freshUntil.isFinite, lifetime.isFinite else { return nil }
            return FreshnessRecord(
                freshUntil: Date(timeIntervalSince1970: freshUntil),
                lifetime: lifetime,
                staleIfError: flag(17) == 1 ? Double(bitPattern: u64(18)) : nil,
                mustRevalidate: flag(26) == 1,
                noCache: flag(27) == 1,
                contentHash: u64(28),
                staleWhileRevalidate: hasRevalidationWindow ? Double(bitPattern: u64(36)) : nil,
                variant: variant
            )
        }
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
