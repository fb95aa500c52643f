import Foundation

/// What a ``FileDataSource`` knows about one entry, without reading its data.
public struct FileEntryInfo: Sendable, Hashable {
    /// The entry's key.
    public var key: String

    /// The size of the entry's data in bytes.
    public var size: Int

    /// When the entry was written.
    public var created: Date

    /// When the entry was last read or written.
    public var lastAccess: Date

    /// When the entry expires (the store stops serving it); `nil` for never.
    public var expiresAt: Date?

    /// When the entry's value stops being fresh by its source's rules (``Strata/EntryMetadata/freshUntil``);
    /// the store keeps serving it past this date. `nil` when its source gave none.
    public var freshUntil: Date?

    /// The `ETag` stored with the entry.
    public var eTag: String?

    /// The `Last-Modified` value stored with the entry.
    public var lastModified: String?

    /// The checksum of the entry's data (a 64-bit, eight-lane Fletcher sum), checked on every read.
    public var contentHash: UInt64

    /// The caller's metadata stored with the entry (``FileDataSource/EntryOptions/attributes``), if any.
    public var attributes: Data?

    /// Creates an info value.
    ///
    /// - Parameters:
    ///   - key: The entry's key.
    ///   - size: The size of its data.
    ///   - created: When it was written.
    ///   - lastAccess: When it was last read or written.
    ///   - expiresAt: When it expires.
    ///   - freshUntil: When its value stops being fresh.
    ///   - eTag: Its `ETag`.
    ///   - lastModified: Its `Last-Modified` value.
    ///   - contentHash: The hash of its data.
    ///   - attributes: The caller's metadata stored with it.
    public init(
        key: String,
        size: Int,
        created: Date,
        lastAccess: Date,
        expiresAt: Date?,
        freshUntil: Date? = nil,
        eTag: String?,
        lastModified: String?,
        contentHash: UInt64,
        attributes: Data? = nil
    ) {
        self.key = key
        self.size = size
        self.created = created
        self.lastAccess = lastAccess
        self.expiresAt = expiresAt
        self.freshUntil = freshUntil
        self.eTag = eTag
        self.lastModified = lastModified
        self.contentHash = contentHash
        self.attributes = attributes
    }
}

extension FileEntryInfo {
    /// The description of the entry a trailer closes, last used at `lastAccess`.
    init(_ trailer: EntryTrailer, lastAccess: Date) {
        self.init(
            key: trailer.key,
            size: trailer.payloadSize,
            created: trailer.created,
            lastAccess: lastAccess,
            expiresAt: trailer.expiresAt,
            freshUntil: trailer.freshUntil,
            eTag: trailer.eTag,
            lastModified: trailer.lastModified,
            contentHash: trailer.contentHash,
            attributes: trailer.attributes
        )
    }
}
