#if Postgres
    import Foundation
    import PostgresNIO
    import PrivatePostgres
    import Strata
    import Testing

    @testable import StrataPostgres

    @Suite(
        "PostgreSQL change feed: LISTEN is under the call deadline",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresListenDeadlineTests {
        /// The feed pinged its connection within the call timeout, then waited for `LISTEN`'s answer for ever.
        @Test(
            "a server that answers SELECT 1 but never acknowledges LISTEN: the feed gives up at the call timeout, tries again, and listens once it is answered"
        )
        func unacknowledgedListenEndsAtTheDeadline() async throws {
            try await withPostgres { server, _ in
                let proxy = try ListenStallingProxy.start(upstreamPort: server.port)
                defer { proxy.stop() }
                try await withClient(port: proxy.port, user: server.user) { client in
                    let notes = try PostgresDataSource<Note>(
                        client: client,
                        table: tableName(),
                        callTimeout: .milliseconds(500),
                        feed: PostgresChangeFeedConfiguration(reconnectDelay: .milliseconds(10))
                    )
                    let changes = notes.changes(forKey: nil)
                    try await withThrowingDiscardingTaskGroup { group in
                        group.addTask { await notes.run() }
                        defer { group.cancelAll() }
                        // The feed closes the stalled connection and asks again on another: without the deadline,
                        // one LISTEN waited for ever and no connection was closed.
                        let gaveUp = try await eventually(within: .seconds(60)) {
                            proxy.stalledClosedByClient >= 1 && proxy.listensStalled >= 2
                        }
                        try #require(
                            gaveUp,
                            "LISTEN stalled \(proxy.listensStalled) times, abandoned \(proxy.stalledClosedByClient)"
                        )
                        #expect(!notes.isListening)
                        // Once the server answers, the feed listens: a new epoch begins.
                        proxy.stallsListen = false
                        #expect(await first(changes) { $0 == .invalidateAll } != nil)
                        #expect(notes.isListening)
                    }
                }
            }
        }
    }
#endif
