#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import Testing

    @testable import StrataPostgres

    /// A feed's waits, whatever a caller sets: no sleep that traps, no reconnect loop that never slows down.
    @Suite("PostgreSQL change feed: its waits are bounded")
    struct PostgresChangeFeedBoundsTests {
        /// The limits are at least 1 however they are set: `pendingKeyLimit = 0` set after the initializer (which
        /// clamped) began a new epoch at every notification, emptying every coherent cache of the fleet each write.
        @Test(arguments: [0, -5, Int.min])
        func limitsSetBelowOneAreOne(limit: Int) {
            var configuration = PostgresChangeFeedConfiguration(trackedKeyLimit: limit, pendingKeyLimit: limit)
            #expect(configuration.trackedKeyLimit == 1 && configuration.pendingKeyLimit == 1)
            configuration = PostgresChangeFeedConfiguration()
            configuration.trackedKeyLimit = limit
            configuration.pendingKeyLimit = limit
            #expect(configuration.trackedKeyLimit == 1)
            #expect(configuration.pendingKeyLimit == 1)
        }

        /// `.seconds(Int64.max)` for "never" made `Task.sleep` trap in the feed's task: the server process crashed.
        @Test(
            "a heartbeat and a reconnect delay of Int64.max seconds are taken as 31 years: the feed listens and hears writes",
            .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
            .timeLimit(.minutes(2))
        )
        func absurdWaitsAreClamped() async throws {
            try await withPostgres { _, client in
                let table = tableName()
                let notes = try PostgresDataSource<Note>(
                    client: client,
                    table: table,
                    callTimeout: generousCallTimeout,
                    feed: PostgresChangeFeedConfiguration(
                        reconnectDelay: .seconds(Int64.max),
                        heartbeat: .seconds(Int64.max)
                    )
                )
                try await withFeed(notes) {
                    let changes = notes.changes(forKey: "a")
                    _ = try await notes.put(Note(title: "a", revision: 1), in: KeyQuery("a"))
                    #expect(await first(changes) { $0 == .put(key: "a") } != nil)
                    #expect(notes.isListening)
                }
            }
        }

        /// Before, the feed remembered the version of every key it heard, however long: 99,999 notifications of 8 KB
        /// keys (anyone who may connect may `NOTIFY` on the channel) held about 800 MB per table in each instance
        /// until the next epoch.
        @Test("a change of a key longer than the source's maximumKeySize is ignored: no cached entry has such a key")
        func longKeysAreNotRemembered() throws {
            let notes = try PostgresDataSource<Note>(client: unrunClient(), table: tableName(), maximumKeySize: 100)
            let feed = notes.feed
            feed.beginEpoch()
            let epoch = try #require(feed.currentEpoch)
            let long = String(repeating: "\u{E9}", count: 51)  // 102 bytes
            let atTheLimit = String(repeating: "x", count: 100)
            feed.record("5:p:\(long)")
            feed.record("6:d:\(long)")
            feed.record("7:p:\(atTheLimit)")
            #expect(feed.ignoredNotificationCount == 2)
            #expect(feed.vouches(forKey: long, tag: PostgresEntryTag(epoch: epoch, version: 1)))
            #expect(!feed.vouches(forKey: atTheLimit, tag: PostgresEntryTag(epoch: epoch, version: 1)))
            #expect(feed.currentEpoch == epoch)
        }

        @Test("the waits between attempts to listen again double from the delay, up to 30 s, each below its ceiling")
        func reconnectsBackOff() {
            let backoff = PostgresChangeFeedConfiguration().reconnectBackoff
            let ceilings = (1...12).map { backoff.ceiling(beforeRetry: $0) }
            let first = [Duration.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800)]
            #expect(Array(ceilings.prefix(4)) == first)
            #expect(ceilings.last == PostgresChangeFeedConfiguration.longestReconnectDelay)
            #expect(backoff.delay(beforeRetry: 3, unitRandom: 0.5) == .milliseconds(200))
        }

        @Test("a delay of zero or less waits at least a millisecond; one past 30 s is its own ceiling, up to 31 years")
        func reconnectDelaysAreClamped() {
            let none = PostgresChangeFeedConfiguration(reconnectDelay: .seconds(-5), heartbeat: .zero)
            #expect(none.reconnectBackoff.ceiling(beforeRetry: 1) == .milliseconds(1))
            #expect(none.heartbeatInterval == .milliseconds(1))
            let long = PostgresChangeFeedConfiguration(reconnectDelay: .seconds(60)).reconnectBackoff
            #expect(long.ceiling(beforeRetry: 5) == .seconds(60))
            let never = PostgresChangeFeedConfiguration(
                reconnectDelay: .seconds(Int64.max),
                heartbeat: .seconds(Int64.max)
            )
            #expect(never.reconnectBackoff.ceiling(beforeRetry: 40) == Duration.longestWait)
            #expect(never.heartbeatInterval == Duration.longestWait)
        }
    }
#endif
