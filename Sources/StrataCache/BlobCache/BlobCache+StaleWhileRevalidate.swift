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

    /// Cancels every background revalidation running now: each request is stopped, and the stale blobs stay as they
    /// were (a fetch revalidates them again).
    ///
    /// A revalidation does not keep a released cache alive, but the server may still be answering it: an app that
    /// is done with a cache (a sign-out) cancels them, then awaits ``waitForBackgroundRefreshes()``, so no request of
    /// the old cache is left running.
    public func cancelBackgroundRefreshes() {
        chain.main.repository.cancelBackgroundRefreshes()
    }
}
