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
            try await withPostgres { server, _ in
                let proxy = try ListenStallingProxy.start(upstreamPort: server.port)
                proxy.stallsListen = false
                defer { proxy.stop() }
                try await withClient(port: proxy.port, user: server.user) { feedClient in
                    let clock = ManualClock()
                    let notes = try PostgresDataSource<Note>(
                        client: feedClient,
                        table: tableName(),
                        callTimeout: .seconds(30),
                        feed: PostgresChangeFeedConfiguration(heartbeat: .seconds(1), clock: clock)
                    )
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
        }

        /// Before, the feed had one slot for the heartbeat notification it waited for: a second `run()` of the source
        /// (or of a copy of it) took the slot, the first run's notification came back unheard, its heartbeat was lost,
        /// and it listened again in a new epoch, emptying the caches, at every heartbeat.
        @Test("a source whose feed is run twice at once hears both runs' heartbeats and stays in its epoch")
        func aFeedRunTwiceKeepsItsHeartbeats() async throws {
            try await withPostgres { _, client in
                let clock = ManualClock()
                let notes = try PostgresDataSource<Note>(
                    client: client,
                    table: tableName(),
                    callTimeout: .seconds(30),
                    feed: PostgresChangeFeedConfiguration(heartbeat: .seconds(1), clock: clock)
                )
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

        /// Waits until the feed sleeps on `clock` for the `count`th time, then moves the clock by `duration`.
        private func advance(_ clock: ManualClock, by duration: Duration, atSleep count: Int) async throws {
            let sleeping = try await eventually { clock.sleepCalls.count == count && clock.sleeperCount == 1 }
            try #require(sleeping, "the feed never slept for the \(count)th time: \(clock.sleepCalls)")
            clock.advance(by: duration)
        }
    }
#endif
