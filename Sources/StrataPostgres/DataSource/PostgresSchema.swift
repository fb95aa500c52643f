#if Postgres
    import PostgresNIO
    import Strata

    /// Whether the table is known to exist, so the schema statement runs once, and again after the table vanished.
    final class PostgresSchema: Sendable {
        private let isReady = Locked(false)

        var ready: Bool { isReady.withLock { $0 } }

        func markReady() { isReady.withLock { $0 = true } }

        func markMissing() { isReady.withLock { $0 = false } }
    }

    extension PostgresDataSource {
        /// Creates the table, its sequence and its trigger when the source has not yet seen them.
        func ensureSchema() async throws {
            guard !schema.ready else { return }
            try await execute(sql.createSchema, PostgresBindings())
            schema.markReady()
        }

        /// Runs `body` once the table exists, within ``callTimeout``; when the table went missing behind the source's
        /// back, creates it again, announces a change of every key, and runs `body` once more. Every failure leaves as a
        /// ``Strata/StrataError``: a call that did not finish in time as ``Strata/StrataError/Code/network``.
        func perform<Result: Sendable>(
            _ action: String,
            _ body: @escaping @Sendable () async throws -> Result
        ) async throws -> Result {
            do {
                return try await PostgresDeadline(callTimeout).run { try await performOnce(body) }
            } catch let expired as PostgresDeadline.Expired {
                throw StrataError(
                    .network,
                    "The \(action) timed out: PostgreSQL did not answer within \(expired.limit) (the call timeout)",
                    underlying: expired.cause
                )
            } catch {
                // A cancelled call whose statement was in flight ends with its connection closed: still a cancellation.
                if Task.isCancelled && !(error is StrataError) {
                    throw StrataError(.cancelled, "The \(action) was cancelled", underlying: error)
                }
                throw PostgresErrors.map(error, action)
            }
        }

        /// ``perform(_:_:)`` without its deadline and without mapping the errors.
        private func performOnce<Result>(_ body: () async throws -> Result) async throws -> Result {
            do {
                try await ensureSchema()
                return try await body()
            } catch let error where PostgresErrors.isUndefinedTable(error) {
                schema.markMissing()
                try await ensureSchema()
                try await execute(sql.announceAll, PostgresBindings())
                return try await body()
            }
        }

        /// Runs one statement on a connection of the pool and returns its rows; a cancelled call closes the
        /// connection, so it ends at once even when the server does not answer.
        func run(_ statement: String, _ binds: PostgresBindings) async throws -> [PostgresRow] {
            try await client.withConnection { connection in
                try await connection.closingOnCancel {
                    try await connection.query(
                        PostgresQuery(unsafeSQL: statement, binds: binds),
                        logger: PostgresDeadline.logger
                    ).collect()
                }
            }
        }

        /// Runs a statement and reads its rows to the end.
        func execute(_ statement: String, _ binds: PostgresBindings) async throws {
            _ = try await run(statement, binds)
        }

        /// Runs a statement whose rows are `(version)` and returns the versions.
        func versions(_ statement: String, _ binds: PostgresBindings) async throws -> [Int64] {
            try await run(statement, binds).map { try $0.decode(Int64.self) }
        }

        /// Runs a statement whose rows are `(key)` and returns the keys.
        ///
        /// - Throws: ``Strata/StrataError/Code/tooLarge`` for more than ``maximumRowCount`` rows.
        func keys(_ statement: String) async throws -> [String] {
            try await boundedRows(statement, PostgresBindings()).map { try $0.decode(String.self) }
        }
    }
#endif
