#if Postgres
    import PostgresNIO
    import Strata

    /// A table's change feed: what `LISTEN` heard, as versions per key and an epoch, and the caches to drop keys from.
    ///
    /// ## Epochs
    ///
    /// `NOTIFY` reaches only connections that are listening, so a feed that lost its connection cannot know what
    /// changed meanwhile. Each time `LISTEN` succeeds, a new epoch begins: the caches are emptied, the versions
    /// forgotten, and every read made from then on is tagged with the new epoch (``PostgresEntryTag``). A cached entry
    /// is served only while its epoch is the current one, so nothing read before a gap in the feed is served after
    /// it. While the feed is not listening, reads carry no tag and the cache serves nothing.
    final class PostgresChangeFeed: Sendable {
        private struct State {
            var epoch: UInt64 = 0
            var isListening = false
            /// The latest version announced for each key in this epoch.
            var versions: [String: Int64] = [:]
            var caches: [UInt64: any DeleteDataSource] = [:]
            var nextCacheID: UInt64 = 0
        }

        private let state = Locked(State())
        let broadcaster = ChangeBroadcaster()
        let configuration: PostgresChangeFeedConfiguration
        /// The longest the feed waits for its connection to answer `SELECT 1`, and for the server to acknowledge
        /// `LISTEN`.
        let deadline: PostgresDeadline

        init(configuration: PostgresChangeFeedConfiguration, deadline: PostgresDeadline) {
            self.configuration = configuration
            self.deadline = deadline
        }

        /// The epoch a read beginning now belongs to, or `nil` while the feed is not listening.
        var currentEpoch: UInt64? { state.withLock { $0.isListening ? $0.epoch : nil } }

        /// Whether `LISTEN` is active.
        var isListening: Bool { state.withLock { $0.isListening } }

        /// Whether an entry read with this tag may still be served: the feed is listening in the tag's epoch, and no
        /// newer version of the key was announced.
        func vouches(forKey key: String, tag: PostgresEntryTag?) -> Bool {
            guard let tag else { return false }
            return state.withLock { state in
                state.isListening && state.epoch == tag.epoch && tag.version >= (state.versions[key] ?? tag.version)
            }
        }

        /// Adds a cache to drop changed keys from; returns its registration.
        func register(_ cache: any DeleteDataSource) -> PostgresCacheRegistration {
            let id = state.withLock { state in
                state.nextCacheID += 1
                state.caches[state.nextCacheID] = cache
                return state.nextCacheID
            }
            return PostgresCacheRegistration { [weak self] in
                self?.state.withLock { _ = $0.caches.removeValue(forKey: id) }
            }
        }

        /// Listens on `channel` until the task is cancelled, listening again after each failure: within
        /// ``PostgresChangeFeedConfiguration/reconnectDelay`` after a connection that listened, then after waits that
        /// double with each failure in a row (``PostgresChangeFeedConfiguration/reconnectBackoff``), so a server that
        /// refuses `LISTEN` or cannot be reached is not asked ten times a second for ever. A server that does not
        /// acknowledge `LISTEN` within the source's call timeout counts as a failure (its connection is closed).
        func run(client: PostgresClient, channel: String) async {
            let backoff = configuration.reconnectBackoff
            var random = SystemRandomNumberGenerator()
            var failures = 0
            while !Task.isCancelled {
                let epochBefore = state.withLock { $0.epoch }
                do {
                    try await client.withConnection { connection in
                        // A connection that does not answer is closed rather than left to hang `LISTEN`, and so is
                        // one whose server does not acknowledge `LISTEN` in time; the listening has no deadline.
                        try await connection.ping(within: deadline)
                        try await connection.listen(on: channel, acknowledgedWithin: deadline) { notifications in
                            await self.beginEpoch()
                            try await withThrowingTaskGroup(of: Void.self) { group in
                                group.addTask {
                                    for try await notification in notifications {
                                        await self.apply(notification.payload)
                                    }
                                }
                                // A connection that died quietly ends no notification sequence: a heartbeat finds out.
                                group.addTask { try await self.heartbeat(connection) }
                                try await group.next()
                                group.cancelAll()
                            }
                        }
                    }
                } catch {
                    // The connection failed or LISTEN was refused: the next epoch begins when listening succeeds.
                }
                let listened = state.withLock { state in
                    state.isListening = false
                    return state.epoch != epochBefore
                }
                failures = listened ? 1 : failures &+ 1
                try? await Task.sleep(for: backoff.delay(beforeRetry: failures, using: &random))
            }
            state.withLock { $0.isListening = false }
        }

        /// Runs `SELECT 1` on the listening connection every ``PostgresChangeFeedConfiguration/heartbeat``;
        /// throws when the connection is gone or does not answer within the source's call timeout.
        private func heartbeat(_ connection: PostgresConnection) async throws {
            while true {
                try await Task.sleep(for: configuration.heartbeatInterval)
                try await connection.ping(within: deadline)
            }
        }

        /// Begins a new epoch: what was cached before can no longer be vouched for.
        func beginEpoch() async {
            let caches = state.withLock { state in
                state.epoch += 1
                state.isListening = true
                state.versions = [:]
                return Array(state.caches.values)
            }
            for cache in caches { try? await cache.delete(AllObjectsQuery()) }
            broadcaster.publish(.invalidateAll)
        }

        /// Applies one notification, `<version>:<p|d|a>:<key>`: records the key's version, drops the key from every
        /// cache, then announces the change. Anything else is taken as a change of every key.
        func apply(_ payload: String) async {
            let parts = payload.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, let version = Int64(parts[0]), parts[1] == "p" || parts[1] == "d", !parts[2].isEmpty
            else {
                await beginEpoch()
                return
            }
            let key = String(parts[2])
            let (caches, overflow) = state.withLock { state in
                state.versions[key] = max(version, state.versions[key] ?? version)
                return (Array(state.caches.values), state.versions.count > configuration.trackedKeyLimit)
            }
            if overflow {
                await beginEpoch()
                return
            }
            for cache in caches { try? await cache.delete(KeyQuery(key)) }
            broadcaster.publish(parts[1] == "d" ? .delete(key: key) : .put(key: key))
        }
    }

    /// Removes a cache from a feed when the last copy of its ``PostgresCoherentCache`` is gone.
    final class PostgresCacheRegistration: Sendable {
        private let unregister: @Sendable () -> Void

        init(unregister: @escaping @Sendable () -> Void) {
            self.unregister = unregister
        }

        deinit { unregister() }
    }

    extension PostgresDataSource {
        /// Runs the change feed until the task is cancelled: `LISTEN`s on the table's channel through one connection
        /// of the client's pool, listening again (and beginning a new epoch) after every failure.
        ///
        /// Run it beside `client.run()` for as long as the source is used; while it is not listening, a
        /// ``PostgresCoherentCache`` serves nothing and every read goes to PostgreSQL.
        public func run() async {
            await feed.run(client: client, channel: table)
        }

        /// Whether the change feed is listening now.
        public var isListening: Bool { feed.isListening }

        /// Wraps `cache` so that it stays coherent with this table across every instance: see
        /// ``PostgresCoherentCache``.
        ///
        /// - Parameter cache: A cache (a `MemoryDataSource`, typically) used by this source only.
        public func coherentCache<Cache: DataSource>(_ cache: Cache) -> PostgresCoherentCache<Cache>
        where Cache.Value == Value {
            PostgresCoherentCache(cache: cache, feed: feed)
        }
    }
#endif
