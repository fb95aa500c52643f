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

        /// Runs `body` once the table exists; when the table went missing behind the source's back, creates it again,
        /// announces a change of every key, and runs `body` once more. Every failure leaves as a
        /// ``Strata/StrataError``.
        func perform<Result>(_ action: String, _ body: () async throws -> Result) async throws -> Result {
            do {
                try await ensureSchema()
                return try await body()
            } catch let error where PostgresErrors.isUndefinedTable(error) {
                schema.markMissing()
                do {
                    try await ensureSchema()
                    try await execute(sql.announceAll, PostgresBindings())
                    return try await body()
                } catch {
                    throw PostgresErrors.map(error, action)
                }
            } catch {
                throw PostgresErrors.map(error, action)
            }
        }

        /// Runs a statement and reads its rows to the end.
        func execute(_ statement: String, _ binds: PostgresBindings) async throws {
            let rows = try await client.query(PostgresQuery(unsafeSQL: statement, binds: binds))
            for try await _ in rows {}
        }

        /// Runs a statement whose rows are `(version)` and returns the versions.
        func versions(_ statement: String, _ binds: PostgresBindings) async throws -> [Int64] {
            let rows = try await client.query(PostgresQuery(unsafeSQL: statement, binds: binds))
            var versions: [Int64] = []
            for try await version in rows.decode(Int64.self) { versions.append(version) }
            return versions
        }

        /// Runs a statement whose rows are `(key)` and returns the keys.
        func keys(_ statement: String) async throws -> [String] {
            let rows = try await client.query(PostgresQuery(unsafeSQL: statement))
            var keys: [String] = []
            for try await key in rows.decode(String.self) { keys.append(key) }
            return keys
        }
    }
#endif
