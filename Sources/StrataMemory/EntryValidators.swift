import Strata

/// The HTTP validators of a memory entry, kept beside it only when it has some: a `nil` reference costs an entry
/// nothing.
@usableFromInline
final class EntryValidators: Sendable {
    /// The entity tag.
    @usableFromInline let eTag: String?

    /// The `Last-Modified` value.
    @usableFromInline let lastModified: String?

    /// Creates validators.
    @usableFromInline
    init(eTag: String?, lastModified: String?) {
        self.eTag = eTag
        self.lastModified = lastModified
    }

    /// The validators of `metadata`, or `nil` when it has none.
    @inlinable
    static func of(_ metadata: EntryMetadata) -> EntryValidators? {
        metadata.hasValidators ? EntryValidators(eTag: metadata.eTag, lastModified: metadata.lastModified) : nil
    }
}
