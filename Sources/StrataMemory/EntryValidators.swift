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

    /// The groups the entry belongs to.
    @usableFromInline let tags: Set<String>

    /// Whether the value must never be served stale.
    @usableFromInline let forbidsServingStale: Bool

    /// The validators, freshness and stale rule of `metadata`, with `tags` for its groups.
    @usableFromInline
    init(_ metadata: EntryMetadata, tags: Set<String>) {
        eTag = metadata.eTag
        lastModified = metadata.lastModified
        freshUntil = metadata.freshUntil
        self.tags = tags
        forbidsServingStale = metadata.forbidsServingStale
    }

    /// The validators, freshness, tags and stale rule of `metadata`, or `nil` when it has none.
    ///
    /// - Parameters:
    ///   - metadata: The entry's metadata.
    ///   - keptTags: The tags to keep when `metadata` has none (a renewal keeps the entry's groups).
    @inlinable
    static func of(_ metadata: EntryMetadata, keepingTags keptTags: Set<String> = []) -> EntryValidators? {
        let tags = metadata.tags.isEmpty ? keptTags : metadata.tags
        guard metadata.hasValidators || metadata.freshUntil != nil || !tags.isEmpty || metadata.forbidsServingStale
        else { return nil }
        return EntryValidators(metadata, tags: tags)
    }
}
