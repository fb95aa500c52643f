import Foundation

/// What the ephemeral layer keeps per URL: the bytes and what its lifetime-extension policy needs.
///
/// One reference (the bytes) and two plain values, so a memory hit copies it with a single retain.
struct CachedBlob: Sendable {
    var data: Data
    var expiresAt: Date
    var lifetime: Duration
}
