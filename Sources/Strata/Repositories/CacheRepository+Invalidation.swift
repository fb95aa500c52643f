extension CacheRepository where Cache: DeleteDataSource {
    /// Removes every cached entry tagged `tag` (``EntryMetadata/tags``): group invalidation.
    ///
    /// The cache deletes a ``TagQuery``: a store that keeps tags removes the entries of the group in time
    /// proportional to their number and announces each removal, so the repository's streams on those keys emit
    /// ``StrataError/Code/notFound`` and the next CacheSync read of each goes to main. Main is not touched.
    ///
    /// - Parameter tag: The tag, such as `team:7`.
    /// - Throws: ``StrataError/Code/queryNotSupported`` when the cache does not keep tags; the cache's error.
    public func invalidate(tag: String) async throws {
        try await cache.delete(TagQuery(tag))
    }
}
