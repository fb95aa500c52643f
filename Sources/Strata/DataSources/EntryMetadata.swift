import struct Foundation.Date

/// What a store knows about an entry besides its value: when it was stored, when it expires, and the validators
/// a server gave it.
///
/// Metadata travels with a value copied between tiers (``PutDataSource/putEntry(_:in:)``), so a copy never
/// lives longer than its original, and a cache can renew it without rewriting the value
/// (``PutDataSource/renewMetadata(_:in:)``), as after an HTTP 304.
public struct EntryMetadata: Sendable, Hashable {
    /// When the value was written to its source, if the source records it.
    public var storedAt: Date?

    /// When the entry stops being served, if it expires.
    public var expiresAt: Date?

    /// The entity tag a server gave the value, sent back as `If-None-Match` to revalidate it.
    public var eTag: String?

    /// The `Last-Modified` date a server gave the value, sent back as `If-Modified-Since`.
    public var lastModified: String?

    /// Creates metadata.
    ///
    /// - Parameters:
    ///   - storedAt: When the value was stored.
    ///   - expiresAt: When the entry expires; `nil` for never.
    ///   - eTag: The server's entity tag.
    ///   - lastModified: The server's `Last-Modified` value.
    public init(storedAt: Date? = nil, expiresAt: Date? = nil, eTag: String? = nil, lastModified: String? = nil) {
        self.storedAt = storedAt
        self.expiresAt = expiresAt
        self.eTag = eTag
        self.lastModified = lastModified
    }

    /// Whether the metadata carries a validator (an entity tag or a `Last-Modified` date) that main can use to
    /// answer *not modified*.
    public var hasValidators: Bool { eTag != nil || lastModified != nil }
}
