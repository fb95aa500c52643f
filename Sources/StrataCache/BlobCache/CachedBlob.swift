import Foundation

/// What the ephemeral layer keeps per URL: the bytes and the blob's own expiry metadata.
///
/// A class, so that a memory hit retains one object instead of copying a struct of five fields; it is
/// immutable, and a lifetime extension stores a new one.
final class CachedBlob: Sendable {
    let data: Data
    let expiresAt: Date
    let lifetime: Duration
    let eTag: String?
    let lastModified: String?

    init(data: Data, expiresAt: Date, lifetime: Duration, eTag: String?, lastModified: String?) {
        self.data = data
        self.expiresAt = expiresAt
        self.lifetime = lifetime
        self.eTag = eTag
        self.lastModified = lastModified
    }

    /// The same blob with a later expiry.
    func expiring(at date: Date) -> CachedBlob {
        CachedBlob(data: data, expiresAt: date, lifetime: lifetime, eTag: eTag, lastModified: lastModified)
    }
}
