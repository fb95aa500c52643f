#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import StrataTesting
    import Testing

    @testable import StrataPostgres

    /// The heartbeat proves that notifications arrive, not only that the connection answers.
    @Suite(
        "PostgreSQL change feed: the heartbeat",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresHeartbeatTests {
        /// Before, the heartbeat was `SELECT 1`: a connection that answered while its `LISTEN` heard nothing kept the
        /// feed in its epoch, and the caches served values whose changes it never heard.
        @Test("a feed whose notifications stop arriving, its connection answering, listens again at its heartbeat")
        func lostNotificationsEndTheEpoch() async throws {
            try await withHeartbeatSource { notes, clock, proxy in
                let epochs = notes.changes(forKey: nil)
                try await withFeed(notes) {
                    let epoch = try #require(notes.feed.currentEpoch)
                    // Given a heartbeat that came back: the feed sleeps for the next one, in the same epoch
                    try await advance(clock, by: .seconds(1), atSleep: 1)
                    #expect(try await eventually { clock.sleepCalls == [.seconds(1), .seconds(30), .seconds(1)] })
                    #expect(notes.feed.currentEpoch == epoch)

                    // When notifications stop reaching the feed, and the heartbeat's wait for its own passes
                    proxy.dropsNotifications = true
                    try await advance(clock, by: .seconds(1), atSleep: 3)
                    try await advance(clock, by: .seconds(30), atSleep: 4)

                    // Then the feed listens again, in a new epoch (its caches emptied)
                    while notes.feed.currentEpoch == nil || notes.feed.currentEpoch == epoch {
                        _ = await first(epochs) { $0 == .invalidateAll }
                    }
                    #expect(notes.isListening)
                }
            }
        }

        /// Before, the feed had one slot for the heartbeat notification it waited for: a second `run()` of the source
        /// (or of a copy of it) took the slot, the first run's notification came back unheard, its heartbeat was lost,
        /// and it listened again in a new epoch, emptying the caches, at every heartbeat.
        @Test("a source whose feed is run twice at once hears both runs' heartbeats and stays in its epoch")
        func aFeedRunTwiceKeepsItsHeartbeats() async throws {
            try await withPostgres { _, client in
                let (notes, clock) = try heartbeatSource(on: client)
                let copy = notes
                try await withFeed(notes) {
                    try await withThrowingDiscardingTaskGroup { group in
                        group.addTask { await copy.run() }
                        defer { group.cancelAll() }
                        // Given both runs listening, each waiting for its first heartbeat
                        try #require(try await eventually { clock.sleepCalls.count == 2 && clock.sleeperCount == 2 })
                        let epoch = try #require(notes.feed.currentEpoch)

                        // When the heartbeats are due
                        clock.advance(by: .seconds(1))

                        // Then both come back, and both runs wait for the next, in the same epoch
                        let heard = try await eventually { clock.sleepCalls.count == 6 && clock.sleeperCount == 2 }
                        #expect(heard, "\(clock.sleepCalls)")
                        #expect(clock.sleepCalls.filter { $0 == .seconds(1) }.count == 4, "\(clock.sleepCalls)")
                        #expect(notes.feed.currentEpoch == epoch)
                    }
                }
            }
        }

        /// Before, a feed whose heartbeat was lost went on vouching for its caches' entries until the close of its
        /// connection completed (over TLS, up to NIO's wait of 5 s for the server's `close_notify`): a coherent cache
        /// served values other instances changed meanwhile. Here the close is held up by the connection's event loop,
        /// kept busy until the test lets it go.
        @Test("a feed whose heartbeat is lost stops vouching before it closes its connection")
        func aLostHeartbeatStopsVouchingBeforeTheClose() async throws {
            let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            do {
                try await withHeartbeatSource(eventLoopGroup: loop) { notes, clock, proxy in
                    try await expectVouchingStopsBeforeTheClose(notes, clock: clock, proxy: proxy, loop: loop)
                }
            } catch {
                try? await loop.shutdownGracefully()
                throw error
            }
            try await loop.shutdownGracefully()
        }

        /// Runs the feed of `notes` (whose client's connections run on `loop`), loses its heartbeat through `proxy` while
        /// `loop` is busy, and expects the feed to stop vouching while the close it began cannot complete.
        private func expectVouchingStopsBeforeTheClose(
            _ notes: PostgresDataSource<Note>,
            clock: ManualClock,
            proxy: ListenStallingProxy,
            loop: any EventLoopGroup
        ) async throws {
            try await withFeed(notes) {
                let tag = PostgresEntryTag(epoch: try #require(notes.feed.currentEpoch), version: 1)
                #expect(notes.feed.vouches(forKey: "a", tag: tag))

                // Given a heartbeat whose notification never comes back, the feed waiting for it
                proxy.dropsNotifications = true
                try await advance(clock, by: .seconds(1), atSleep: 1)
                let waiting = try await eventually { clock.sleepCalls.count == 2 && clock.sleeperCount == 1 }
                try #require(waiting, "\(clock.sleepCalls)")

                // When the wait passes while the connection's event loop is busy, so the close cannot complete
                let busy = DispatchSemaphore(value: 0)
                loop.next().execute { busy.wait() }
                defer { busy.signal() }
                clock.advance(by: .seconds(30))

                // Then the feed stops vouching at once, before its connection is closed
                let stopped = try await eventually(within: .seconds(10)) { !notes.feed.vouches(forKey: "a", tag: tag) }
                #expect(stopped)
                #expect(notes.feed.currentEpoch == nil)
            }
        }

        /// Runs `body` with a source whose feed beats every second on a manual clock, its client (on `eventLoopGroup`)
        /// reaching a private PostgreSQL through a ``ListenStallingProxy`` that lets `LISTEN` through.
        private func withHeartbeatSource(
            eventLoopGroup: any EventLoopGroup = PostgresClient.defaultEventLoopGroup,
            _ body: (PostgresDataSource<Note>, ManualClock, ListenStallingProxy) async throws -> Void
        ) async throws {
            try await withPostgres { server, _ in
                let proxy = try ListenStallingProxy.start(upstreamPort: server.port)
                proxy.stallsListen = false
                defer { proxy.stop() }
                try await withClient(port: proxy.port, user: server.user, eventLoopGroup: eventLoopGroup) { client in
                    let (notes, clock) = try heartbeatSource(on: client)
                    try await body(notes, clock, proxy)
                }
            }
        }

        /// A source on `client` whose feed beats every second on a manual clock, and that clock.
        private func heartbeatSource(on client: PostgresClient) throws -> (PostgresDataSource<Note>, ManualClock) {
            let clock = ManualClock()
            let notes = try PostgresDataSource<Note>(
                client: client,
                table: tableName(),
                callTimeout: .seconds(30),
                feed: PostgresChangeFeedConfiguration(heartbeat: .seconds(1), clock: clock)
            )
            return (notes, clock)
        }

        /// Waits until the feed sleeps on `clock` for the `count`th time, then moves the clock by `duration`.
        private func advance(_ clock: ManualClock, by duration: Duration, atSleep count: Int) async throws {
            let sleeping = try await eventually { clock.sleepCalls.count == count && clock.sleeperCount == 1 }
            try #require(sleeping, "the feed never slept for the \(count)th time: \(clock.sleepCalls)")
            clock.advance(by: duration)
        }
    }
#endif
