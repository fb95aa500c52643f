import Foundation

/// What the ephemeral layer keeps per URL: the bytes and what its lifetime-extension policy needs.
///
/// One reference (the bytes) and two plain values, so a memory hit copies it with a single retain.
struct CachedBlob: Sendable {
    var data: Data
    var expiresAt: Date
    var lifetime: Duration
}

extension CachedBlob {
    /// Whether `other` is this blob as stored (its bytes and expiry), not another version stored since.
    func isSameVersion(as other: CachedBlob) -> Bool {
        expiresAt == other.expiresAt && lifetime == other.lifetime && data.isSameBytes(as: other.data)
    }
}

extension Data {
    /// Whether `other` holds the same bytes: told at once when both share one buffer (a copy of a value read from a
    /// layer), compared byte by byte otherwise.
    func isSameBytes(as other: Data) -> Bool {
        guard count == other.count else { return false }
        let shared = withUnsafeBytes { mine in other.withUnsafeBytes { $0.baseAddress == mine.baseAddress } }
        return shared || self == other
    }
}
