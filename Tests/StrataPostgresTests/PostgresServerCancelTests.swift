#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import Testing

    @testable import StrataPostgres

    /// A call that ends early ends its statement on the server too: closing the connection alone left the server
    /// process running the statement (here sleeping; a lock wait is in ``PostgresCallTimeoutTests``), holding what it
    /// held, until it ended by itself.
    @Suite(
        "PostgreSQL call timeout: the server's statement is cancelled",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresServerCancelTests {
        @Test("a cancelled call's pg_sleep is no longer running on the server once the call has ended")
        func aCancelledStatementIsCancelled() async throws {
            try await withPostgres { _, client in
                // A call timeout longer than the suite's time limit: only the cancellation can end the read.
                let texts: PostgresDataSource<String> = try source(client, callTimeout: .seconds(600))
                _ = try await texts.put("value", in: KeyQuery("k"))
                let read = Task { await strataCode { _ = try await texts.getAll(SleepingFilter()) } }
                try await client.withConnection { observer in
                    // Once the server sleeps in the read, cancel it.
                    let reached = try await eventually {
                        (try? await statementsOnServer("query LIKE '%pg_sleep(600)%'", on: observer)) == 1
                    }
                    try #require(reached, "the read never reached the server")
                    read.cancel()
                    #expect(await read.value == .cancelled)
                    let sleeping = try await statementsOnServer("query LIKE '%pg_sleep(600)%'", on: observer)
                    #expect(sleeping == 0, "the server still sleeps in the read's statement")
                }
                #expect(try await texts.get(KeyQuery("k")) == "value")
            }
        }

        /// How many other server processes run a statement now under `condition` on `pg_stat_activity`.
        private func statementsOnServer(_ condition: String, on connection: PostgresConnection) async throws -> Int {
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT count(*)::int FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
                        + "AND state = 'active' AND \(condition)"
                ),
                logger: Logger(label: "strata.tests")
            )
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            return count
        }
    }

    /// A filter that sleeps ten minutes on the server for each row.
    struct SleepingFilter: PostgresFilterQuery {
        var condition: PostgresQuery { "pg_sleep(600) IS NOT NULL" }
    }
#endif
