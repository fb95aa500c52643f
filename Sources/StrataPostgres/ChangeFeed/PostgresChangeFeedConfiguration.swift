#if Postgres
    import Strata

    /// How a ``PostgresDataSource``'s change feed behaves.
    public struct PostgresChangeFeedConfiguration: Sendable {
        /// How long the feed waits before its first attempt to listen again after its connection failed; each
        /// further failure in a row doubles the wait, up to ``longestReconnectDelay`` (or this delay, if longer),
        /// drawn at random below it (full jitter, so a fleet that lost its server does not come back at once).
        /// At least a millisecond.
        public var reconnectDelay: Duration

        /// How often the feed checks that notifications still reach it: it sends one of its own on the table's channel
        /// (`pg_notify`, payload `h:<random token>`) through its listening connection, and waits for it to come back
        /// within the source's call timeout. When it does not (a connection that died without closing, or one that
        /// answers while its `LISTEN` hears nothing), the connection is closed and the feed listens again, beginning a
        /// new epoch. A failure is noticed within this time and the call timeout; until then, the cache may serve
        /// values the feed could not hear change. Once it is noticed the cache serves nothing, even while the close runs
        /// (over TLS, it may wait seconds for the server's `close_notify`). Every feed listening on the table hears each heartbeat (and ignores
        /// the others'): a fleet of n instances sends n notifications per heartbeat, each heard n times. At least a
        /// millisecond; longer than about 31 years, as 31 years.
        public var heartbeat: Duration

        /// What the heartbeat sleeps on, and times the return of its notification by: ``Strata/SystemClock`` by
        /// default, a `ManualClock` in tests.
        public var clock: any WallClock

        /// The longest wait between attempts to listen again, unless ``reconnectDelay`` is longer: 30 seconds.
        public static let longestReconnectDelay = Duration.seconds(30)

        /// How many keys' latest versions the feed remembers; past it the feed begins a new epoch (every cached
        /// entry is then stale), so its memory stays bounded: at most this many keys of at most the source's
        /// ``PostgresDataSource/maximumKeySize`` bytes. Notifications not in the triggers' shape, and changes of
        /// longer keys (which no cache holds), count for nothing: they are ignored. At least 1: a smaller value set
        /// is taken as 1.
        public var trackedKeyLimit: Int {
            didSet { trackedKeyLimit = max(1, trackedKeyLimit) }
        }

        /// How many changed keys may wait to be dropped from the caches; past it the feed forgets them and begins a new
        /// epoch (every cache is emptied), so a cache slow to delete holds neither the notifications back nor memory
        /// without bound. The feed reads notifications as they come and records each key's version at once, so no
        /// entry older than a notification it read is served meanwhile. At least 1: a smaller value set is taken
        /// as 1 (0 began a new epoch, emptying every cache, at each notification).
        public var pendingKeyLimit: Int {
            didSet { pendingKeyLimit = max(1, pendingKeyLimit) }
        }

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - reconnectDelay: The pause between attempts to listen again; 100 ms by default.
        ///   - trackedKeyLimit: How many keys' versions to remember; 100,000 by default.
        ///   - pendingKeyLimit: How many changed keys may wait to be dropped from the caches; 10,000 by default.
        ///   - heartbeat: How often to check that notifications arrive; one second by default.
        ///   - clock: What the heartbeat sleeps on; the system's clock by default.
        public init(
            reconnectDelay: Duration = .milliseconds(100),
            trackedKeyLimit: Int = 100_000,
            pendingKeyLimit: Int = 10_000,
            heartbeat: Duration = .seconds(1),
            clock: any WallClock = SystemClock()
        ) {
            self.heartbeat = heartbeat
            self.clock = clock
            self.reconnectDelay = reconnectDelay
            self.trackedKeyLimit = max(1, trackedKeyLimit)
            self.pendingKeyLimit = max(1, pendingKeyLimit)
        }

        /// The heartbeat's interval as the feed sleeps it: between a millisecond and about 31 years.
        var heartbeatInterval: Duration { max(heartbeat.clampedAsWait, .milliseconds(1)) }

        /// The waits between attempts to listen again: from ``reconnectDelay`` (at least a millisecond), doubling,
        /// up to ``longestReconnectDelay`` or the delay itself if longer, with full jitter.
        var reconnectBackoff: RetryPlugin.Backoff {
            let initial = max(reconnectDelay.clampedAsWait, .milliseconds(1))
            return RetryPlugin.Backoff(
                initial: initial,
                multiplier: 2,
                maximum: max(initial, Self.longestReconnectDelay),
                jitter: .full
            )
        }
    }
#endif
