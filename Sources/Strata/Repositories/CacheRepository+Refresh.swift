extension CacheRepository {
    /// The number of stale-while-revalidate refreshes running in the background now.
    public var backgroundRefreshCount: Int { refreshes.count }

    /// Returns when every stale-while-revalidate refresh running in the background at the call is done.
    ///
    /// Refreshes that start meanwhile are not waited for, so steady traffic cannot keep it waiting; it returns at
    /// once when the calling task is cancelled.
    ///
    /// A test awaits it after a read that served a stale value, instead of sleeping; an app may await it before
    /// it suspends.
    public func waitForBackgroundRefreshes() async {
        await refreshes.waitForAll()
    }

    /// Cancels every stale-while-revalidate refresh running in the background: main sees the cancellation (a network
    /// source stops its request), and the stale entries stay as they were.
    ///
    /// A refresh holds the repository, and so its stores and their folders, until main answers: cancel the refreshes
    /// (then ``waitForBackgroundRefreshes()``) before letting go of a repository whose folders are opened again, or
    /// when the app is done with it (a sign-out).
    public func cancelBackgroundRefreshes() {
        refreshes.cancelAll()
    }
}

extension CacheRepository
where Main: GetDataSource, Cache: GetDataSource & PutDataSource, Main.Value == Cache.Value {
    /// Starts main's half of a read in the background (stale-while-revalidate), once per query at a time when the
    /// query is `Hashable`; a query that is not starts one per read (``BackgroundRefreshes/start(key:limit:_:)``
    /// cannot tell two equal).
    ///
    /// The refresh runs through the configuration's refresh plugins, which see its error; nobody else does, and the
    /// stale entry stays in the cache — unless main answered *not found* and the operation's fallback does not serve
    /// the stale copy after that error: a value main no longer has goes. A successful refresh announces a write of
    /// the query to the repository's streams.
    func refreshInBackground<Entry, Value>(
        _ plan: OperationPlan.Read,
        _ read: PlannedRead<Entry, Value>,
        stale: Entry?,
        since stamp: CacheWriteStamps.Stamp
    ) {
        // One refresh per query at a time: a later read's refresh, after a write, would find the stale value again and
        // start its own once this one ended (this one does not write back over the write).
        let key = mainReadKey(isGetAll: read.isGetAll, writesBack: plan.writesBack, read.query, since: nil).map {
            AnyHashable($0)
        }
        refreshes.start(key: key, limit: configuration.maxBackgroundRefreshes) { [self] in
            let method: PluginCall.Method = read.isGetAll ? .getAll : .get
            let call = PluginCall(
                method: method,
                query: read.query,
                operation: nil,
                source: "refresh",
                value: nil,
                attachment: refreshes.attachment
            )
            do {
                // Not shared with other reads: a shared read runs in a task of its own and goes on when its callers
                // leave, so ``cancelBackgroundRefreshes()`` would not reach main (one refresh per query runs anyway).
                _ = try await runPlugins(configuration.refreshPlugins[...], call) {
                    try await readMain(plan, read, stale: stale, coalesces: false, since: stamp)
                }
                changeBroadcaster.publishWrite(to: read.query)
            } catch {
                // The refresh plugins saw the error; the stale entry stays for the next read. One main answered
                // *not found* for went in `readMain`, unless the operation's fallback serves stale after that error.
            }
        }
    }
}
