#if Postgres
    /// How a ``PostgresDataSource``'s change feed behaves.
    public struct PostgresChangeFeedConfiguration: Sendable {
        /// How long the feed waits before listening again after its connection failed.
        public var reconnectDelay: Duration

        /// How often the feed checks that its connection is alive (`SELECT 1`). A connection that died without
        /// closing is noticed within this time; until then, the cache may serve values the feed could not hear change.
        public var heartbeat: Duration

        /// How many keys' latest versions the feed remembers; past it the feed begins a new epoch (every cached
        /// entry is then stale), so its memory stays bounded.
        public var trackedKeyLimit: Int

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - reconnectDelay: The pause between attempts to listen again; 100 ms by default.
        ///   - trackedKeyLimit: How many keys' versions to remember; 100,000 by default.
        ///   - heartbeat: How often to check the connection; one second by default.
        public init(
            reconnectDelay: Duration = .milliseconds(100),
            trackedKeyLimit: Int = 100_000,
            heartbeat: Duration = .seconds(1)
        ) {
            self.heartbeat = heartbeat
            self.reconnectDelay = reconnectDelay
            self.trackedKeyLimit = max(1, trackedKeyLimit)
        }
    }
#endif
