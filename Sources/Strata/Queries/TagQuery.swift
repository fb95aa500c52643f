/// A query for every entry that carries a tag (``EntryMetadata/tags``): group invalidation.
///
/// Entries are tagged when written (``PutDataSource/put(_:in:tags:)``, or ``PutDataSource/putEntry(_:in:)`` with
/// tags in the metadata); `delete(TagQuery("team:7"))` removes every entry tagged `team:7` from a store that keeps
/// tags, in time proportional to the entries it removes, and announces each removal, so streams observing them
/// emit. ``CacheRepository/invalidate(tag:)`` does it on a repository's cache. A store that does not keep tags throws
/// ``StrataError/Code/queryNotSupported``.
public struct TagQuery: Query, Hashable {
    /// The tag.
    public let tag: String

    /// Creates a query for the entries that carry `tag`.
    ///
    /// - Parameter tag: The tag, such as `user:42`.
    public init(_ tag: String) {
        self.tag = tag
    }
}
