#if Postgres
    import Foundation
    import PostgresNIO
    import PrivatePostgres
    import Strata
    import StrataTestSupport
    import Testing
    import _ConnectionPoolModule

    @testable import StrataPostgres

    @Suite("PostgreSQL call timeout", .timeLimit(.minutes(2)))
    struct PostgresCallTimeoutTests {
        /// A write the pool refused before any connection (its circuit breaker trips after the server was unreachable
        /// for a minute) was never sent: its error does not say it may have taken effect, so a cache keeps its copy. (It
        /// said so, and the cache dropped its copy at every write of the outage.) A lost connection still says so
        /// (PostgresLostReplyTests).
        @Test("a write the pool refused before any connection did not take effect")
        func aWriteThePoolRefusedDidNotTakeEffect() {
            let refused = PostgresErrors.map(
                ConnectionPoolError.connectionCreationCircuitBreakerTripped,
                "write",
                writes: true
            )
            #expect(refused.code == .network && !refused.mayHaveTakenEffect)
        }

        @Test("with no server to reach, a get and a put end at the call timeout with a retryable network error")
        func noServer() async throws {
            // Nothing listens on the port, and no server can take it while the test holds it.
            let refusing = try RefusingPort()
            try await withClient(port: Int(refusing.port), user: "strata") { client in
                let notes: PostgresDataSource<Note> = try source(
                    client,
                    callTimeout: .milliseconds(300)
                )
                let calls: [@Sendable () async throws -> Void] = [
                    { _ = try await notes.get(KeyQuery("k")) },
                    { _ = try await notes.put(Note(title: "k", revision: 1), in: KeyQuery("k")) },
                ]
                for call in calls {
                    let error = await strataError(call)
                    #expect(error?.code == .network)
                    #expect(error?.isRetryable == true)
                    #expect(error?.underlying != nil)
                    #expect(error?.message.contains("call timeout") == true)
                    // (it waited for a connection: nothing was sent)
                    #expect(error?.mayHaveTakenEffect == false)
                }
            }
        }

        /// Before, a call timeout of zero or less was taken as zero: every call failed at once with a retryable
        /// `network` error (which a `RetryPlugin` retries), and the feed's heartbeat began a new epoch each time.
        @Test("a call timeout of zero or less is refused with invalidArgument; any above zero is taken")
        func nonPositiveCallTimeout() throws {
            let client = unrunClient()
            for timeout in [Duration.zero, .nanoseconds(-1), .seconds(-5)] {
                let error = #expect(throws: StrataError.self) {
                    try PostgresDataSource<Note>(client: client, table: "t", callTimeout: timeout)
                }
                #expect(error?.code == .invalidArgument, "\(timeout)")
                #expect(error?.message.contains("callTimeout") == true)
            }
            let notes = try PostgresDataSource<Note>(client: client, table: "t", callTimeout: .nanoseconds(1))
            #expect(notes.callTimeout == .nanoseconds(1))
        }

        @Test(
            "a statement the server does not answer ends at the call timeout, and the source works afterwards",
            .enabled(if: postgresAvailable, "PostgreSQL is not installed")
        )
        func unansweredStatement() async throws {
            try await withPostgres { server, client in
                let texts: PostgresDataSource<String> = try source(client)
                let impatient: PostgresDataSource<String> = try source(
                    client,
                    table: texts.table,
                    callTimeout: .milliseconds(500)
                )
                _ = try await texts.put("value", in: KeyQuery("k"))
                try await withLockedTable(texts.table, on: server) { _ in
                    // No statement timeout: without the call timeout, the read would wait for the lock.
                    let error = await strataError { _ = try await impatient.get(KeyQuery("k")) }
                    #expect(error?.code == .network)
                    #expect(error?.isRetryable == true)
                }
                // The connection of the read that timed out was closed; the pool serves the next call on another.
                var value: String?
                try await untilServed { value = try await impatient.get(KeyQuery("k")) }
                #expect(value == "value")
            }
        }

        @Test(
            "a cancelled call waiting on the server ends at once as cancelled, and the source works afterwards",
            .enabled(if: postgresAvailable, "PostgreSQL is not installed")
        )
        func cancelledCall() async throws {
            try await withPostgres { server, _ in
                // One connection: the call after a cancelled one is given the connection the cancellation closed, unless
                // the pool heard of the close before the cancelled call gave it back.
                try await withClient(port: server.port, user: server.user, maximumConnections: 1) { client in
                    // A call timeout longer than the suite's time limit: only the cancellation can end the read.
                    let texts: PostgresDataSource<String> = try source(
                        client,
                        callTimeout: .seconds(600)
                    )
                    _ = try await texts.put("value", in: KeyQuery("k"))
                    for _ in 0..<10 {
                        try await withLockedTable(texts.table, on: server) { locker in
                            let read = Task { await strataCode { _ = try await texts.get(KeyQuery("k")) } }
                            // Once the read waits for the lock on the server, cancel it.
                            while try await waitingForLocks(locker) == 0 {
                                try await Task.sleep(for: .milliseconds(10))
                            }
                            read.cancel()
                            #expect(await read.value == .cancelled)
                        }
                        #expect(try await texts.get(KeyQuery("k")) == "value")
                    }
                }
            }
        }

        @Test(
            "a feed whose connection stops answering notices at its heartbeat, within the call timeout, and listens again",
            .enabled(if: postgresAvailable, "PostgreSQL is not installed")
        )
        func silentFeedConnection() async throws {
            try await withPostgres { server, client in
                try await withClient(on: server) { feedClient in
                    // The feed's client runs nothing else: its one connection is the feed's.
                    let notes = try PostgresDataSource<Note>(
                        client: feedClient,
                        table: tableName(),
                        callTimeout: .seconds(1),
                        feed: PostgresChangeFeedConfiguration(heartbeat: .milliseconds(100))
                    )
                    let epochs = notes.changes(forKey: nil)
                    try await withFeed(notes) {
                        // The epoch listening now: a heartbeat answered later than the call timeout on a loaded run
                        // may have ended the first one, and the feed then listens again.
                        var listening: UInt64?
                        _ = try await eventually {
                            listening = notes.feed.currentEpoch
                            return listening != nil
                        }
                        let epochBefore = try #require(listening, "the feed did not listen again")
                        // The feed's one connection, alone: one it replaced (a heartbeat late on a loaded run) may
                        // still show while its server process exits, and is not the one to stop.
                        var feedProcesses: [Int32] = []
                        let alone = try await eventually {
                            let listed = try? await client.withConnection { connection in
                                try await serverProcesses(
                                    "backend_type = 'client backend' AND pid <> pg_backend_pid() AND (query ILIKE "
                                        + "'listen%' OR query IN ('SELECT 1', 'SELECT pg_notify($1, $2)'))",
                                    on: connection
                                )
                            }
                            feedProcesses = listed ?? []
                            return feedProcesses.count == 1
                        }
                        #expect(alone, "the feed's server processes: \(feedProcesses)")
                        let feedProcess = try #require(feedProcesses.first)
                        // The server process of the feed's connection stops: the connection stays open, silent.
                        kill(pid_t(feedProcess), SIGSTOP)
                        defer { kill(pid_t(feedProcess), SIGCONT) }
                        while notes.feed.currentEpoch == nil || notes.feed.currentEpoch == epochBefore {
                            _ = await first(epochs) { $0 == .invalidateAll }
                        }
                        #expect(notes.isListening)
                    }
                }
            }
        }

        /// How many server processes wait for a lock now.
        private func waitingForLocks(_ connection: PostgresConnection) async throws -> Int {
            try await serverProcesses("wait_event_type = 'Lock'", on: connection).count
        }

        /// The ids of the server processes `pg_stat_activity` shows under `condition`.
        private func serverProcesses(_ condition: String, on connection: PostgresConnection) async throws -> [Int32] {
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT pid FROM pg_stat_activity WHERE \(condition)"),
                logger: Logger(label: "strata.tests")
            )
            var processes: [Int32] = []
            for try await process in rows.decode(Int32.self) { processes.append(process) }
            return processes
        }
    }
#endif
