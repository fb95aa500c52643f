#if Postgres
    import Foundation
    import PostgresNIO
    import PrivatePostgres
    import Strata
    import Testing

    @testable import StrataPostgres

    /// Ordered reads and the key's index, checked by `PostgresSchemaRepairTests` on its server.
    enum PostgresOrderedReads {
        /// A page, all rows and the key listing read an index in key order, of a new table and of an earlier one.
        ///
        /// Before, the key's only index was in the database's collation and the reads order by `key COLLATE "C"`:
        /// every page, every read of all rows and every key listing scanned and sorted the whole table.
        static func orderedReadsUseAnIndex(_ server: PrivatePostgres, _ client: PostgresClient) async throws {
            // A table as an earlier version of the schema made it: the key's index in the database's collation.
            let earlier = tableName()
            try await server.psql(
                """
                CREATE SEQUENCE \(earlier)_version;
                CREATE TABLE \(earlier) (key text PRIMARY KEY, value jsonb NOT NULL,
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    version bigint NOT NULL DEFAULT nextval('\(earlier)_version'));
                INSERT INTO \(earlier) (key, value) VALUES ('a', '{"title": "a", "revision": 1}');
                """
            )
            let old: PostgresDataSource<Note> = try source(client, table: earlier)
            #expect(try await old.get(KeyQuery("a")).revision == 1)
            let new: PostgresDataSource<Note> = try source(client)
            _ = try await new.put(Note(title: "a", revision: 1), in: KeyQuery("a"))
            for notes in [old, new] {
                var page = PostgresBindings()
                page.append(Int64(0))
                page.append(Int64(100))
                let statements = [
                    ("page", notes.sql.selectPage, page), ("all", notes.sql.selectAll, PostgresBindings()),
                    ("keys", notes.sql.selectKeys, PostgresBindings()),
                ]
                for (name, statement, binds) in statements {
                    let plan = try await Self.plan(of: statement, binds, on: client)
                    #expect(plan.contains("Index") && !plan.contains("Sort"), "\(name):\n\(plan)")
                }
                #expect(try await notes.getAll(PaginationOffsetLimitQuery(offset: 0, limit: 10)).count == 1)
            }
        }

        /// The plan of `statement` with sequential scans off (on a table of one row, the planner would otherwise
        /// rightly prefer one, index or not).
        private static func plan(
            of statement: String,
            _ binds: PostgresBindings,
            on client: PostgresClient
        ) async throws -> String {
            try await client.withConnection { connection in
                let logger = Logger(label: "strata.tests")
                try await connection.query("BEGIN", logger: logger)
                try await connection.query("SET LOCAL enable_seqscan = off", logger: logger)
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "EXPLAIN " + statement, binds: binds),
                    logger: logger
                )
                var text = ""
                for try await line in rows.decode(String.self) { text += line + "\n" }
                try await connection.query("ROLLBACK", logger: logger)
                return text
            }
        }
    }
#endif
