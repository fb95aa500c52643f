import Foundation

/// What the ephemeral layer keeps per URL: the bytes and the blob's own expiry metadata.
struct CachedBlob: Sendable {
    var data: Data
    var expiresAt: Date
    var lifetime: Duration
    var eTag: String?
    var lastModified: String?
}
