#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import StrataTestSupport
    import StrataTesting
    import Testing

    @testable import StrataPostgres

    @Suite(
        "PostgresDataSource",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresDataSourceTests {
        @Test("passes DataSourceConformance (a new table per rule)")
        func conformance() async throws {
            try await withPostgres { _, client in
                try await DataSourceConformance(
                    capabilities: .init(concurrentTasks: 32, keyedLists: true, pagination: true, canonicalKeys: true),
                    makeSource: { try source(client) as PostgresDataSource<String> },
                    makeValue: { "value \($0)" }
                ).run()
            }
        }

        @Test("answers every query kind: ids in order, all and pages in key order, a filter, a key listing")
        func queries() async throws {
            try await withPostgres { _, client in
                let notes: PostgresDataSource<Note> = try source(client, keyOfValue: \.title)
                let values = ["b", "a", "d", "c"].enumerated().map { Note(title: $1, revision: $0) }
                _ = try await notes.putAll(values, in: AllObjectsQuery())
                #expect(try await notes.getAll(IdsQuery(["d", "a"])).map(\.title) == ["d", "a"])
                #expect(try await notes.getAll(AllObjectsQuery()).map(\.title) == ["a", "b", "c", "d"])
                #expect(
                    try await notes.getAll(PaginationOffsetLimitQuery(offset: 1, limit: 2)).map(\.title) == ["b", "c"]
                )
                #expect(try await notes.getAll(RevisionAtLeast(revision: 2)).map(\.title) == ["c", "d"])
                #expect(try await notes.getAll(LastKey()).map(\.title) == ["d"])
                try await notes.delete(RevisionAtLeast(revision: 2))
                #expect(try await notes.getAll(AllObjectsQuery()).map(\.title) == ["a", "b"])
                #expect(await strataCode { _ = try await notes.getAll(IdsQuery(["a", "zz"])) } == .notFound)
            }
        }

        /// Before, the condition was written into the statement's one line: a condition ending in a `--` comment made
        /// the rest of the statement a comment, and every read and delete of the filter failed.
        @Test("a filter condition ending in a -- comment reads and deletes its rows")
        func aConditionEndingInACommentIsWhole() async throws {
            try await withPostgres { _, client in
                let notes: PostgresDataSource<Note> = try source(client, keyOfValue: \.title)
                let values = ["b", "a", "d", "c"].enumerated().map { Note(title: $1, revision: $0) }
                _ = try await notes.putAll(values, in: AllObjectsQuery())
                #expect(try await notes.getAll(CommentedRevisionAtLeast(revision: 2)).map(\.title) == ["c", "d"])
                try await notes.delete(CommentedRevisionAtLeast(revision: 2))
                #expect(try await notes.getAll(AllObjectsQuery()).map(\.title) == ["a", "b"])
            }
        }

        @Test("putAll is one transaction: a value PostgreSQL refuses stores none of them")
        func putAllIsAtomic() async throws {
            try await withPostgres { _, client in
                let texts: PostgresDataSource<String> = try source(client)
                // jsonb cannot hold U+0000 in a string: PostgreSQL refuses the third value (SQLSTATE 22P05).
                let code = await strataCode {
                    _ = try await texts.putAll(["one", "two", "bad\u{0}"], in: IdsQuery(["1", "2", "3"]))
                }
                #expect(code == .dataSerialization)
                #expect(try await texts.getAll(AllObjectsQuery()).isEmpty)
            }
        }

        @Test("a conditional write is a conflict once the row moved on; the error keeps PostgreSQL's")
        func optimisticConcurrency() async throws {
            try await withPostgres { _, client in
                let texts: PostgresDataSource<String> = try source(client)
                let first = try await texts.put("one", forKey: "k", ifVersion: nil)
                #expect(await strataCode { _ = try await texts.put("again", forKey: "k", ifVersion: nil) } == .conflict)
                let second = try await texts.put("two", forKey: "k", ifVersion: first)
                #expect(second > first)
                #expect(
                    await strataCode { _ = try await texts.put("stale", forKey: "k", ifVersion: first) } == .conflict
                )
                #expect(try await texts.versionedValue(forKey: "k") == ("two", second))
            }
        }

        @Test("tables x and x_version refuse each other with a clear error, in either order")
        func tableNamesThatCollideWithAVersionSequence() async throws {
            try await withPostgres { _, client in
                for (first, second) in [("abc", "abc_version"), ("def_version", "def")] {
                    let prefix = tableName("c")
                    let a: PostgresDataSource<String> = try source(client, table: prefix + first)
                    _ = try await a.put("value", in: KeyQuery("k"))
                    let b: PostgresDataSource<String> = try source(client, table: prefix + second)
                    let error = await strataError { _ = try await b.put("other", in: KeyQuery("k")) }
                    #expect(error?.code == .invalidArgument, "\(String(describing: error))")
                    #expect(error?.message.contains("version sequence") == true)
                    #expect(try await a.get(KeyQuery("k")) == "value")
                }
            }
        }

        /// Before, the schema statement put its triggers on any table of the source's name: every INSERT and UPDATE of
        /// the program whose table it was failed from then on ("record "new" has no field "key""), and the source's
        /// own calls failed with `unexpectedResponse`.
        ///
        /// A key of a nondeterministic (case-insensitive) collation is refused too: its unique index takes `A` for `a`,
        /// so a write of one replaced the row of the other while the notification named the key written, and the
        /// caches kept the other. Before, such a table was taken.
        @Test("a table of the source's name with other columns is refused with invalidArgument and left untouched")
        func anotherProgramsTable() async throws {
            try await withPostgres { _, client in
                try await client.query(
                    "CREATE COLLATION strata_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)"
                )
                let tables = [
                    ("id serial PRIMARY KEY, name text", "(name) VALUES ('x')"),
                    (
                        "key text PRIMARY KEY, value jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now()",
                        "(key, value) VALUES ('k', '1')"
                    ),
                    (
                        "key text NOT NULL, value jsonb NOT NULL, updated_at timestamptz NOT NULL, version bigint NOT NULL",
                        "VALUES ('k', '1', now(), 1)"
                    ),
                    (
                        "key text PRIMARY KEY, value text NOT NULL, updated_at timestamptz NOT NULL, version bigint NOT NULL",
                        "VALUES ('k', '1', now(), 1)"
                    ),
                    (
                        "key text COLLATE strata_ci PRIMARY KEY, value jsonb NOT NULL, updated_at timestamptz NOT NULL, "
                            + "version bigint NOT NULL",
                        "VALUES ('k', '1', now(), 1)"
                    ),
                ]
                for (columns, row) in tables {
                    let table = tableName()
                    try await client.query(PostgresQuery(unsafeSQL: "CREATE TABLE \(table) (\(columns))"))
                    let notes: PostgresDataSource<Note> = try source(client, table: table)
                    let error = await strataError { _ = try await notes.get(KeyQuery("a")) }
                    #expect(error?.code == .invalidArgument, "\(columns): \(String(describing: error))")
                    #expect(error?.message.contains("not the columns of a Strata table") == true)
                    let triggers = try await column(
                        "SELECT count(*) FROM pg_trigger WHERE tgrelid = '\(table)'::regclass AND NOT tgisinternal",
                        as: Int64.self,
                        on: client
                    )
                    #expect(triggers == [0], "\(columns)")
                    let sequence = try await column(
                        "SELECT to_regclass('\(table)_version') IS NULL",
                        as: Bool.self,
                        on: client
                    )
                    #expect(sequence == [true], "\(columns)")
                    try await client.query(PostgresQuery(unsafeSQL: "INSERT INTO \(table) \(row)"))
                }
                // A table of Strata's columns, made by hand with one more that a write leaves empty, is taken.
                let table = tableName()
                try await client.query(
                    PostgresQuery(
                        unsafeSQL: """
                            CREATE TABLE \(table) (key text PRIMARY KEY, value jsonb NOT NULL,
                            updated_at timestamptz NOT NULL DEFAULT now(), version bigint NOT NULL DEFAULT 0, note text)
                            """
                    )
                )
                let notes: PostgresDataSource<Note> = try source(client, table: table)
                #expect(await strataCode { _ = try await notes.get(KeyQuery("a")) } == .notFound)
            }
        }

        @Test("a table name outside [a-z_][a-z0-9_]{0,40} is refused before any SQL")
        func tableNames() async throws {
            try await withPostgres { _, client in
                for name in ["", "Users", "x; DROP TABLE y", "1abc", "a\"b", String(repeating: "a", count: 42)] {
                    #expect(throws: StrataError.self) { try PostgresDataSource<String>(client: client, table: name) }
                }
                _ = try PostgresDataSource<String>(client: client, table: "select")
            }
        }
    }

    /// Before, every process ran `CREATE OR REPLACE FUNCTION` and `CREATE OR REPLACE TRIGGER` on the table at its first
    /// call: a role that may only read and write the rows failed every call, and each start locked the table.
    @Suite(
        "PostgreSQL schema",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresSchemaTests {
        /// Also after a restore left its triggers firing in origin sessions only, or with an older version's functions
        /// in place (an upgrade the owner has not opened yet): the role cannot repair them, and uses the table as it
        /// is. (Refused, every call of the role failed with 42501.)
        @Test(
            "a role that may only read and write the rows uses a table its owner made",
            arguments: [
                "", "ALTER TABLE {t} DISABLE TRIGGER ALL; ALTER TABLE {t} ENABLE TRIGGER ALL",
                "COMMENT ON FUNCTION {t}_notify() IS 'strata schema 8'",
            ]
        )
        func aRoleWithoutOwnershipUsesTheTable(afterwards change: String) async throws {
            try await withAppRole(afterwards: change) { owner, app in
                #expect(try await app.get(KeyQuery("a")).revision == 1)
                _ = try await app.put(Note(title: "b", revision: 2), in: KeyQuery("b"))
                #expect(try await owner.get(KeyQuery("b")).revision == 2)
            }
        }

        /// A table whose writes would go unannounced (a trigger disabled) or announced on another channel (functions of
        /// a schema before 8) is refused to a role that cannot repair it, as before: the call fails rather than serve a
        /// fleet whose caches hear nothing. (A first mend let the role use any such table, review found.)
        @Test(
            "a role that may only read and write the rows is refused a table whose writes it would not announce",
            arguments: [
                "ALTER TABLE {t} DISABLE TRIGGER {t}_notify", "COMMENT ON FUNCTION {t}_notify() IS 'strata schema 2'",
            ]
        )
        func aRoleWithoutOwnershipIsRefusedATableItCannotTrust(afterwards change: String) async throws {
            try await withAppRole(afterwards: change) { _, app in
                #expect(await strataCode { _ = try await app.get(KeyQuery("a")) } != nil)
            }
        }

        /// Runs `body` with a source of the owner, which wrote a, and one of the role `app`, which may only read and
        /// write the rows, after `change` (SQL, `{t}` for the table) ran as the owner.
        private func withAppRole(
            afterwards change: String,
            _ body: (PostgresDataSource<Note>, PostgresDataSource<Note>) async throws -> Void
        ) async throws {
            try await withPostgres { server, client in
                let owner: PostgresDataSource<Note> = try source(client)
                _ = try await owner.put(Note(title: "a", revision: 1), in: KeyQuery("a"))
                let table = owner.table
                try await server.psql(
                    "CREATE ROLE app LOGIN; GRANT SELECT, INSERT, UPDATE, DELETE ON \(table) TO app; "
                        + "GRANT USAGE, SELECT ON SEQUENCE \(table)_version TO app"
                )
                if !change.isEmpty { try await server.psql(change.replacingOccurrences(of: "{t}", with: table)) }
                try await withClient(port: server.port, user: "app") { appClient in
                    try await body(owner, try source(appClient, table: table))
                }
            }
        }

        /// Before, a filter naming a relation that does not exist was taken for the table gone missing: the table was
        /// "made again" and every key announced as changed to the whole fleet, at every such call.
        @Test("a filter naming a missing relation fails without announcing a change of every key")
        func aFilterNamingAMissingRelationAnnouncesNothing() async throws {
            try await withPostgres { _, client in
                let notes: PostgresDataSource<Note> = try source(client)
                _ = try await notes.put(Note(title: "a", revision: 1), in: KeyQuery("a"))
                try await withFeed(notes) {
                    let changes = notes.changes(forKey: nil)
                    #expect(await strataCode { _ = try await notes.getAll(InMissingTable()) } != nil)
                    _ = try await notes.put(Note(title: "b", revision: 1), in: KeyQuery("b"))
                    // Notifications come in commit order: a change of every key would come before b's
                    let change = await first(changes) { $0 == .invalidateAll || $0 == .put(key: "b") }
                    #expect(change == .put(key: "b"))
                }
            }
        }
    }

    /// A filter whose condition reads a relation that does not exist.
    struct InMissingTable: PostgresFilterQuery {
        var condition: PostgresQuery { "EXISTS (SELECT 1 FROM no_such_table)" }
    }

    /// The notes whose revision is at least `revision`: a filter on the `jsonb` column, its value bound.
    struct RevisionAtLeast: PostgresFilterQuery {
        let revision: Int

        var condition: PostgresQuery { "(value->>'revision')::int >= \(revision)" }
    }

    /// ``RevisionAtLeast`` with a comment after its condition.
    struct CommentedRevisionAtLeast: PostgresFilterQuery {
        let revision: Int

        var condition: PostgresQuery { "(value->>'revision')::int >= \(revision) -- at least that revision" }
    }

    /// The last key: a key listing of its own.
    struct LastKey: KeyListingQuery {
        func selectKeys(from sortedKeys: [String]) -> [String] { sortedKeys.suffix(1) }
    }
#endif
