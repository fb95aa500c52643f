extension BlobCache {
    /// The number of background revalidations running now: stale blobs served at once inside their response's
    /// `stale-while-revalidate` window (RFC 5861), being revalidated with the server.
    public var backgroundRefreshCount: Int { chain.main.repository.backgroundRefreshCount }

    /// Returns when every background revalidation running at the call is done (not those that start meanwhile).
    ///
    /// A fetch inside a blob's `stale-while-revalidate` window returns the stale blob (origin `.stale`) and
    /// revalidates it in the background, once per URL; a test awaits this instead of sleeping, an app may await
    /// it before it suspends.
    public func waitForBackgroundRefreshes() async {
        await chain.main.repository.waitForBackgroundRefreshes()
    }
}
