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
    ///
    /// Each run of the feed holds one connection of the client's pool for as long as it listens.
    final class PostgresChangeFeed: Sendable {
        private struct State {
            /// Starts anywhere in the lower half of its range, so no other feed (another process's, or another source's
            /// over the table) counts the same epochs: an entry tagged by one is never vouched for by another.
            var epoch = UInt64.random(in: 0...(UInt64.max / 2))
            var isListening = false
            /// The latest version announced for each key in this epoch.
            var versions: [String: Int64] = [:]
            var caches: [UInt64: any DeleteDataSource] = [:]
            var nextCacheID: UInt64 = 0
            /// The keys still to drop from the caches, each with its latest change (at most
            /// ``PostgresChangeFeedConfiguration/pendingKeyLimit``).
            var pending: [String: PendingChange] = [:]
            /// Whether the caches are still to be emptied (an epoch began); the keys heard since are kept in
            /// ``pending`` and announced after it, so a table's first write is heard as one after its creation's
            /// announcement.
            var isPendingAll = false
            /// How many notifications were not in the triggers' shape, or named a key too long to be cached
            /// (``record(_:)``).
            var ignoredNotificationCount = 0
            /// The heartbeats' notifications the feed waits for, by token, and what to tell when each comes: one for
            /// each run of the feed (a source run twice at once, or two copies of it run, listen twice).
            var echoes: [UInt64: AsyncStream<Void>.Continuation] = [:]
        }

        /// The heartbeat's notification a feed waits for (its token), and what to tell when it comes.
        typealias Echo = (token: UInt64, heard: AsyncStream<Void>.Continuation)

        /// A key's change still to be applied to the caches: its latest version, and whether that was a delete.
        private struct PendingChange {
            var version: Int64
            var isDelete: Bool
        }

        /// What the applier does next: empty the caches, or drop one key.
        private enum Invalidation {
            case all
            case key(String, PendingChange)
        }

        private let state = Locked(State())
        let broadcaster = ChangeBroadcaster()
        let configuration: PostgresChangeFeedConfiguration
        /// The longest the feed waits for its connection to answer `SELECT 1`, and for the server to acknowledge
        /// `LISTEN`.
        let deadline: PostgresDeadline
        /// The source's ``PostgresDataSource/maximumKeySize``: no cached entry has a longer key, so the change of one
        /// is ignored (``record(_:)``), and the versions the feed remembers hold at most
        /// ``PostgresChangeFeedConfiguration/trackedKeyLimit`` keys of at most this many bytes.
        let maximumKeySize: Int

        init(configuration: PostgresChangeFeedConfiguration, deadline: PostgresDeadline, maximumKeySize: Int) {
            self.configuration = configuration
            self.deadline = deadline
            self.maximumKeySize = maximumKeySize
        }

        /// The epoch a read beginning now belongs to, or `nil` while the feed is not listening.
        var currentEpoch: UInt64? { state.withLock { $0.isListening ? $0.epoch : nil } }

        /// Whether `LISTEN` is active.
        var isListening: Bool { state.withLock { $0.isListening } }

        /// Whether an entry read with this tag may still be served: the feed is listening in the tag's epoch, and no
        /// newer version of the key was announced. Never at the largest version, which the triggers no longer raise:
        /// a read of it cannot be told from one made before a later write.
        func vouches(forKey key: String, tag: PostgresEntryTag?) -> Bool {
            guard let tag, tag.version != .max else { return false }
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
        ///
        /// Notifications are read as they come and recorded at once (``record(_:)``); a second task applies them to
        /// the caches, so a cache slow to delete never holds the notifications back (they would pile up in the
        /// client and in the server's notification queue, which the whole cluster shares).
        func run(client: PostgresClient, channel: String) async {
            let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.applyPending(wakeups) }
                await listen(client: client, channel: channel, wake: wake)
                group.cancelAll()
            }
        }

        /// The loop of ``run(client:channel:)``: listens, and listens again after each failure.
        private func listen(client: PostgresClient, channel: String, wake: AsyncStream<Void>.Continuation) async {
            let backoff = configuration.reconnectBackoff
            var random = SystemRandomNumberGenerator()
            var failures = 0
            while !Task.isCancelled {
                let epochBefore = state.withLock { $0.epoch }
                do {
                    try await client.withConnection { connection in
                        // A connection that does not answer is closed rather than left to hang `LISTEN`, and so is
                        // one whose server does not acknowledge `LISTEN` in time; the listening has no deadline. The
                        // close completes before the connection goes back to the pool (over TLS it may take seconds:
                        // the timed-out call's own wait for it is bounded), which would hand a closing connection to
                        // the next call of a source on this client.
                        try await closingOnExpiry(connection) {
                            try await listen(on: connection, channel: channel, wake: wake)
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

        /// Runs `body` on `connection`; when a deadline of its expired, stops vouching, closes the connection and waits
        /// for the close (``stopListening(andClose:)``).
        private func closingOnExpiry(
            _ connection: PostgresConnection,
            _ body: () async throws -> Void
        ) async throws {
            do {
                try await body()
            } catch let error as PostgresDeadline.Expired {
                await stopListening(andClose: connection)
                throw error
            }
        }

        /// Stops vouching for the caches' entries, then closes `connection`, the feed's, and waits for the close: the
        /// feed can no longer tell what changed, and a close may take seconds (over TLS, NIO waits for the server's
        /// `close_notify`, up to its `shutdownTimeout`), during which the caches must serve nothing. The epoch stays: the
        /// next `LISTEN` begins a new one.
        func stopListening(andClose connection: PostgresConnection) async {
            state.withLock { $0.isListening = false }
            try? await connection.close()
        }

        /// Listens on `connection` until it fails: checks it answers, listens, and records the notifications while a
        /// heartbeat checks they still come.
        private func listen(
            on connection: PostgresConnection,
            channel: String,
            wake: AsyncStream<Void>.Continuation
        ) async throws {
            try await connection.ping(within: deadline)
            try await connection.listen(on: channel, acknowledgedWithin: deadline) { notifications in
                self.beginEpoch()
                wake.yield()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await notification in notifications {
                            self.record(notification.payload)
                            wake.yield()
                        }
                    }
                    // A connection that died quietly ends no notification sequence, and one whose LISTEN
                    // hears nothing still answers: a heartbeat that notifies itself finds out.
                    group.addTask { try await self.heartbeat(connection, channel: channel) }
                    try await group.next()
                    group.cancelAll()
                }
            }
        }

        /// How many keys are still to be dropped from the caches.
        var pendingKeyCount: Int { state.withLock { $0.pending.count } }

        /// Begins a new epoch: what was cached before can no longer be vouched for. The caches are emptied by the
        /// applier (``applyPending(_:)``), which then announces ``Strata/DataChange/invalidateAll``.
        func beginEpoch() {
            state.withLock { Self.beginEpoch(&$0) }
        }

        /// Begins a new epoch in `state`: the versions and the keys still to drop are forgotten, the caches are to be
        /// emptied.
        private static func beginEpoch(_ state: inout State) {
            state.epoch &+= 1
            state.isListening = true
            state.versions = [:]
            state.pending = [:]
            state.isPendingAll = true
        }

        /// Records one notification at once, as the table's triggers write it (``PostgresFeedPayload``).
        ///
        /// A key's change records the key's version (so no older entry is vouched for from now on) and keeps the key as
        /// one to drop from the caches with its latest change: however many changes of one key come, the key is kept
        /// once. A change of every key begins a new epoch, and so does a key past either bound
        /// (``PostgresChangeFeedConfiguration/trackedKeyLimit``, ``PostgresChangeFeedConfiguration/pendingKeyLimit``).
        /// Any other payload is not the triggers' (anyone who may connect may `NOTIFY` on any channel), and a change of
        /// a key longer than ``maximumKeySize`` bytes concerns no cached entry (every keyed call refuses such a key, and
        /// a keyed read finds only the row of its key's very bytes): either is counted (``ignoredNotificationCount``)
        /// and changes nothing, so notifications of long keys cannot fill the feed's memory.
        func record(_ payload: String) {
            switch PostgresFeedPayload(payload) {
            case nil:
                state.withLock { $0.ignoredNotificationCount &+= 1 }
            case .change(let key, _, _) where key.utf8.count > maximumKeySize:
                state.withLock { $0.ignoredNotificationCount &+= 1 }
            case .everyKey:
                beginEpoch()
            case .heartbeat(let token):
                // Another feed's heartbeat on the channel is not this one's.
                state.withLock { state in _ = state.echoes[token]?.yield() }
            case .change(let key, let version, let isDelete):
                let change = PendingChange(version: version, isDelete: isDelete)
                state.withLock { state in
                    state.versions[key] = max(version, state.versions[key] ?? version)
                    guard state.versions.count <= configuration.trackedKeyLimit else { return Self.beginEpoch(&state) }
                    // Kept while emptying the caches is still to come, too: the key is then announced after
                    // `invalidateAll`, as what it is (a table made again, or made at all, is announced in the statement
                    // that makes it, just before the first write of the call that made it).
                    if let pending = state.pending[key] {
                        // Notifications come in the order their transactions committed: the last one heard says
                        // whether the key is deleted now. A key inserted again just after its delete may take a
                        // version below the delete's (the insert's stamp ran before it waited for the delete's lock).
                        state.pending[key] = PendingChange(version: max(version, pending.version), isDelete: isDelete)
                    } else if state.pending.count < configuration.pendingKeyLimit {
                        state.pending[key] = change
                    } else {
                        Self.beginEpoch(&state)
                    }
                }
            }
        }

        /// Adds `echo` to the heartbeat notifications the feed waits for.
        func awaitEcho(_ echo: Echo) {
            state.withLock { $0.echoes[echo.token] = echo.heard }
        }

        /// Stops waiting for the heartbeat notification of `token`.
        func forgetEcho(_ token: UInt64) {
            state.withLock { _ = $0.echoes.removeValue(forKey: token) }
        }

        /// How many notifications the feed ignored because they were not in the triggers' shape, or named a key longer
        /// than ``maximumKeySize``.
        var ignoredNotificationCount: Int { state.withLock { $0.ignoredNotificationCount } }

        /// Applies what ``record(_:)`` and ``beginEpoch()`` left to do, each time `wakeups` says there is some, until
        /// the task is cancelled: empties the caches or drops one key from each, then announces the change.
        private func applyPending(_ wakeups: AsyncStream<Void>) async {
            for await _ in wakeups {
                while let next = nextInvalidation() {
                    let caches = state.withLock { Array($0.caches.values) }
                    // A dropped copy is not a deleted value: the caches' own announcements of it do not reach
                    // streams, which hear what the feed publishes after it.
                    switch next {
                    case .all:
                        await ObservationScope.droppingCopies {
                            for cache in caches { try? await cache.delete(AllObjectsQuery()) }
                        }
                        broadcaster.publish(.invalidateAll)
                    case .key(let key, let change):
                        await ObservationScope.droppingCopies {
                            for cache in caches { try? await cache.delete(KeyQuery(key)) }
                        }
                        broadcaster.publish(change.isDelete ? .delete(key: key) : .put(key: key))
                    }
                }
            }
        }

        /// Takes the next invalidation to apply: emptying the caches first, then any one key.
        private func nextInvalidation() -> Invalidation? {
            state.withLock { state in
                if state.isPendingAll {
                    state.isPendingAll = false
                    return .all
                }
                return state.pending.popFirst().map { .key($0.key, $0.value) }
            }
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
        /// Runs the change feed until the task is cancelled: `LISTEN`s on the table's channel (`strata:<table>`) through
        /// one connection of the client's pool, listening again (and beginning a new epoch) after every failure.
        ///
        /// Run it beside `client.run()` for as long as the source is used; while it is not listening, a
        /// ``PostgresCoherentCache`` serves nothing and every read goes to PostgreSQL. The feed holds its connection for
        /// as long as it listens, so the pool's `maximumConnections` (20 by default in postgres-nio) must exceed the
        /// number of feeds run on the client plus the calls you want to run at once. Run it once per source: the
        /// source's copies share its feed, and a second `run()` at once listens beside the first (each run hears its
        /// own heartbeats), on a connection more and to no gain.
        public func run() async {
            await feed.run(client: client, channel: sql.channel)
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
