#if Postgres
    import Foundation
    import PostgresNIO
    import Strata

    extension PostgresClient {
        /// Runs one statement on a connection of the pool and hands its rows to `read`; a call cancelled (or timed
        /// out) once its statement was sent closes the connection and cancels the statement on the server.
        ///
        /// Closing the connection ends postgres-nio's wait at once, but PostgreSQL does not notice a closed client
        /// while a statement runs (unless the server sets `client_connection_check_interval`): the statement would go
        /// on, and hold its locks, until it ended by itself. postgres-nio 1.x sends no cancel request and does not tell
        /// the connection's server process, so each statement begins with a comment that names its call, and once the
        /// call ended, another connection of the pool cancels (`pg_cancel_backend`) the statement still running under
        /// that comment, until no server process runs it, within `deadline`: the call ends once the statement is gone
        /// from the server (or the deadline passed).
        ///
        /// - Parameters:
        ///   - statement: The statement's SQL text.
        ///   - binds: Its parameters.
        ///   - deadline: The longest the cancellation of a cancelled call may take.
        ///   - read: Reads the rows (on the statement's connection).
        func statement<Result: Sendable>(
            _ statement: String,
            _ binds: PostgresBindings,
            cancelWithin deadline: PostgresDeadline,
            _ read: @Sendable (PostgresRowSequence) async throws -> Result
        ) async throws -> Result {
            let mark = "/* strata call \(UUID().uuidString) */ "
            let sent = Locked(false)
            do {
                return try await withConnection { connection in
                    try await connection.closingOnCancel {
                        sent.withLock { $0 = true }
                        let rows = try await connection.query(
                            PostgresQuery(unsafeSQL: mark + statement, binds: binds),
                            logger: PostgresDeadline.logger
                        )
                        return try await read(rows)
                    }
                }
            } catch {
                if Task.isCancelled && sent.withLock({ $0 }) {
                    await cancelStatement(marked: mark, within: deadline)
                }
                throw error
            }
        }

        /// Cancels the statement that begins with `mark` on whichever server process still runs it, from another
        /// connection of the pool, and returns once none runs it or `deadline` passed (it then gives up quietly: the
        /// statement's connection is closed anyway).
        private func cancelStatement(marked mark: String, within deadline: PostgresDeadline) async {
            var binds = PostgresBindings()
            binds.append(mark)
            // The calling task is cancelled, and the pool refuses a cancelled task a connection: the cancellation runs
            // in a task of its own, awaited, so it does not outlive the call.
            await Task { [binds] in
                try? await deadline.run {
                    try await self.withConnection { connection in
                        try await connection.closingOnCancel {
                            // A server process handles the signal a moment later: ask until none runs the statement.
                            while try await !connection.query(
                                PostgresQuery(
                                    unsafeSQL: """
                                        SELECT pg_cancel_backend(pid) FROM pg_stat_activity
                                        WHERE pid <> pg_backend_pid() AND state = 'active' AND starts_with(query, $1)
                                        """,
                                    binds: binds
                                ),
                                logger: PostgresDeadline.logger
                            ).collect().isEmpty {}
                        }
                    }
                }
            }.value
        }
    }

    extension PostgresDataSource {
        /// The longest the cancellation of a statement whose call ended early may take: ``callTimeout``, but at least
        /// five seconds, so that a short call timeout still leaves the pool the time to connect for the cancellation
        /// on a loaded server.
        var cancellationDeadline: PostgresDeadline { PostgresDeadline(max(callTimeout, .seconds(5))) }
    }
#endif
