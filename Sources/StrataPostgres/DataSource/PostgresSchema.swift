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
        ///
        /// - Parameter announcingRemade: Whether the schema statement announces every key when it makes the table or
        ///   its sequence (``PostgresStatements/createSchema(announcingRemade:)``).
        func ensureSchema(announcingRemade: Bool = true) async throws {
            guard !schema.ready else { return }
            try await execute(sql.createSchema(announcingRemade: announcingRemade), PostgresBindings())
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
                // The statement may have been sent, and committed, before its connection was closed; not when the
                // call still waited for a connection of the pool.
                throw StrataError(
                    .network,
                    "The \(action) timed out: PostgreSQL did not answer within \(expired.limit) (the call timeout)",
                    underlying: expired.cause,
                    mayHaveTakenEffect: !PostgresErrors.isWaitForAConnection(expired.cause)
                )
            } catch {
                // A cancelled call whose statement was in flight ends with its connection closed: still a cancellation.
                if Task.isCancelled && !(error is StrataError) {
                    throw StrataError(.cancelled, "The \(action) was cancelled", underlying: error)
                }
                throw PostgresErrors.map(error, action, writes: action != Self.readAction)
            }
        }

        /// The action of ``perform(_:_:)`` that changes nothing: every other one writes.
        static var readAction: String { "read" }

        /// ``perform(_:_:)`` without its deadline and without mapping the errors.
        private func performOnce<Result>(_ body: () async throws -> Result) async throws -> Result {
            do {
                try await ensureSchema()
                return try await body()
            } catch let error where PostgresErrors.isUndefinedTable(error) {
                // Another relation a statement names (a filter's subquery) can be the missing one: the table is only
                // made again, and every key announced as changed, when it is the table or its sequence that is gone.
                // Announced here, once, whatever was dropped and whoever made them again first (the schema statement
                // announces only what it makes itself).
                guard try await tableIsMissing() else { throw error }
                schema.markMissing()
                try await ensureSchema(announcingRemade: false)
                try await execute(sql.announceAll, PostgresBindings())
                return try await body()
            }
        }

        /// Whether the table or its version sequence is missing.
        private func tableIsMissing() async throws -> Bool {
            let rows = try await run(sql.isMissing, PostgresBindings())
            return try rows.first?.decode(Bool.self) ?? true
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

        /// Runs a write of ``PostgresStatements``, whose rows are `(version, refused size)`, and returns the versions
        /// written.
        ///
        /// - Throws: ``Strata/StrataError/Code/tooLarge`` when the server refused a value longer than
        ///   ``maximumValueSize`` as it prints `jsonb` (nothing was written).
        func versions(_ statement: String, _ binds: PostgresBindings) async throws -> [Int64] {
            try await run(statement, binds).map { row in
                let (version, size) = try row.decode((Int64?, Int32?).self)
                guard let version else { throw valueTooLarge(Int(size ?? 0)) }
                return version
            }
        }

        /// Runs a statement whose rows are `(key, size)` and returns the keys.
        ///
        /// - Throws: ``Strata/StrataError/Code/tooLarge`` for more than ``maximumRowCount`` rows, and for a key the
        ///   server withheld (`NULL`: longer than ``maximumKeySize``).
        func keys(_ statement: String) async throws -> [String] {
            try await boundedRows(statement, PostgresBindings()).map { row in
                let (key, size) = try row.decode((String?, Int32).self)
                guard let key else { throw keyTooLarge(Int(size)) }
                return key
            }
        }
    }
#endif
