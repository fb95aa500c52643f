import Foundation
import Strata

/// The HTTP validators and freshness of a memory entry, kept beside it only when it has some: a `nil` reference
/// costs an entry nothing.
@usableFromInline
final class EntryValidators: Sendable {
    /// The entity tag.
    @usableFromInline let eTag: String?

    /// The `Last-Modified` value.
    @usableFromInline let lastModified: String?

    /// When the value stops being fresh by its source's rules.
    @usableFromInline let freshUntil: Date?

    /// Creates validators.
    @usableFromInline
    init(eTag: String?, lastModified: String?, freshUntil: Date?) {
        self.eTag = eTag
        self.lastModified = lastModified
        self.freshUntil = freshUntil
    }

    /// The validators and freshness of `metadata`, or `nil` when it has neither.
    @inlinable
    static func of(_ metadata: EntryMetadata) -> EntryValidators? {
        guard metadata.hasValidators || metadata.freshUntil != nil else { return nil }
        return EntryValidators(
            eTag: metadata.eTag,
            lastModified: metadata.lastModified,
            freshUntil: metadata.freshUntil
        )
    }
}
