#if Postgres
    import Foundation
    import PostgresNIO
    import PrivatePostgres
    import Strata
    import StrataMemory
    import StrataTestSupport
    import Testing

    @testable import StrataPostgres

    @Suite("PostgreSQL faults", .enabled(if: postgresAvailable, "PostgreSQL is not installed"), .timeLimit(.minutes(2)))
    struct PostgresFaultTests {
        @Test("a statement timeout is a retryable network error carrying PostgreSQL's 57014")
        func statementTimeout() async throws {
            // Every statement of the client has the limit, the setup's too: 2 s leaves them room on a loaded machine,
            // and the read of the locked table waits for it
            try await withPostgres(statementTimeout: "2s") { server, client in
                let texts: PostgresDataSource<String> = try source(client)
                _ = try await texts.put("value", in: KeyQuery("k"))
                try await withLockedTable(texts.table, on: server) { _ in
                    do {
                        _ = try await texts.get(KeyQuery("k"))
                        Issue.record("a read of a locked table succeeded")
                    } catch let error as StrataError {
                        #expect(error.code == .network)
                        #expect(error.isRetryable)
                        #expect(PostgresErrors.sqlState(of: try #require(error.underlying)) == "57014")
                    }
                }
                #expect(try await texts.get(KeyQuery("k")) == "value")
            }
        }

        /// A serialization failure (and a deadlock, the same case) is a retryable error, not a conflict: a conflict
        /// goes to an outbox's resolver, whose default (`takeRemote`) drops the queued write. The table's trigger
        /// raises the server's own `40001` on every write.
        @Test("a serialization failure is a retryable error, not a conflict")
        func serializationFailure() async throws {
            try await withPostgres { server, client in
                let texts: PostgresDataSource<String> = try source(client)
                _ = try await texts.put("value", in: KeyQuery("k"))
                let table = texts.table
                try await refuseWrites(of: table, "serialization_failure", "could not serialize access", on: server)
                do {
                    _ = try await texts.put("other", in: KeyQuery("k"))
                    Issue.record("a write the server refused succeeded")
                } catch let error as StrataError {
                    #expect(error.code != .conflict)
                    #expect(error.isRetryable)
                    #expect(PostgresErrors.sqlState(of: try #require(error.underlying)) == "40001")
                }
                #expect(PostgresErrors.isTransient("40P01"))
                #expect(PostgresErrors.code(ofSQLState: "23505") == .conflict)
                #expect(try await texts.get(KeyQuery("k")) == "value")
            }
        }

        /// A failover's demoted primary, a full disk, a lock timeout: transient, as a server's `503` is. Before, each was
        /// a permanent `unexpectedResponse`: never retried, a first offline write thrown, a replayed one set aside.
        @Test(
            "transient server conditions are retryable",
            arguments: [
                ("read_only_sql_transaction", "25006", StrataError.Code.network),
                ("disk_full", "53100", .unexpectedResponse),
                ("lock_not_available", "55P03", .unexpectedResponse),
            ]
        )
        func transientConditions(condition: String, state: String, code: StrataError.Code) async throws {
            try await withPostgres { server, client in
                let texts: PostgresDataSource<String> = try source(client)
                _ = try await texts.put("value", in: KeyQuery("k"))
                try await refuseWrites(of: texts.table, condition, "refused", on: server)
                do {
                    _ = try await texts.put("other", in: KeyQuery("k"))
                    Issue.record("a write the server refused succeeded")
                } catch let error as StrataError {
                    #expect(error.code == code)
                    #expect(error.isRetryable)
                    #expect(PostgresErrors.sqlState(of: try #require(error.underlying)) == state)
                }
                #expect(!PostgresErrors.isTransient("53400"), "a configured limit stays")
            }
        }

        /// A client whose `run()` ended fails every call for good: not a retryable network error, retried and replayed
        /// for as long as the process lives.
        @Test("a shut-down client is an invalid argument, not retryable")
        func shutDownClient() async throws {
            try await withPostgres { server, _ in
                let made = Locked<PostgresDataSource<String>?>(nil)
                try await withClient(on: server) { running in
                    let texts: PostgresDataSource<String> = try source(running)
                    _ = try await texts.put("value", in: KeyQuery("k"))
                    made.withLock { $0 = texts }
                }
                let texts = try #require(made.withLock { $0 })
                do {
                    _ = try await texts.get(KeyQuery("k"))
                    Issue.record("a read through a shut-down client succeeded")
                } catch let error as StrataError {
                    #expect(error.code == .invalidArgument)
                    #expect(!error.isRetryable)
                }
            }
        }

        /// An instance of an earlier version (a fleet mid-deploy, a rolled-back build) leaves a later schema as it is.
        /// Before, the schema statement ran whenever the function's comment was not its own version exactly, so an
        /// older instance put its older triggers back over the newer ones at every start. The comment stands for a
        /// later version here.
        @Test("a later schema is never put back to this one")
        func laterSchemaStays() async throws {
            try await withPostgres { server, client in
                let texts: PostgresDataSource<String> = try source(client)
                _ = try await texts.put("value", in: KeyQuery("k"))
                let function = "\"\(texts.table)_notify\"()"
                try await server.psql("COMMENT ON FUNCTION \(function) IS 'strata schema 99'")

                let again: PostgresDataSource<String> = try source(client, table: texts.table)
                #expect(try await again.get(KeyQuery("k")) == "value")

                let rows = try await client.query(
                    PostgresQuery(unsafeSQL: "SELECT obj_description(to_regprocedure('\(function)'), 'pg_proc')")
                )
                var comments: [String?] = []
                for try await comment in rows.decode(String?.self) { comments.append(comment) }
                #expect(comments == ["strata schema 99"])
            }
        }

        /// Before, every program_limit_exceeded (`54000`) was `tooLarge`, which no one retries: a NOTIFY queue held full
        /// by a listener idle in a transaction refused every write of every table as too large, though it empties once
        /// that transaction ends. The table's trigger raises the server's own code and message.
        @Test("a full NOTIFY queue is a retryable error, not tooLarge")
        func notifyQueueFull() async throws {
            try await withPostgres { server, client in
                let texts: PostgresDataSource<String> = try source(client)
                _ = try await texts.put("value", in: KeyQuery("k"))
                let table = texts.table
                try await refuseWrites(
                    of: table,
                    "program_limit_exceeded",
                    "too many notifications in the NOTIFY queue",
                    on: server
                )
                let error = await strataError { _ = try await texts.put("other", in: KeyQuery("k")) }
                #expect(error != nil)
                #expect(error?.code != .tooLarge)
                #expect(error?.isRetryable == true)
                #expect(PostgresErrors.sqlState(of: try #require(error?.underlying)) == "54000")
                #expect(try await texts.get(KeyQuery("k")) == "value")
            }
        }

        @Test("a table dropped behind the sources' backs is created again, and every cache drops what it held")
        func droppedTable() async throws {
            try await withPostgres { server, client in
                let instance = try Instance(client: client, table: tableName())
                let changes = instance.source.changes(forKey: nil)
                try await withFeed(instance.source) {
                    let heard = instance.source.changes(forKey: "k")
                    _ = try await instance.source.put(Note(title: "k", revision: 1), in: KeyQuery("k"))
                    _ = await first(heard) { _ in true }
                    #expect(try await instance.readIntoCache("k"))
                    _ = await first(changes) { $0 == .invalidateAll }

                    try await server.psql("DROP TABLE \(instance.source.table)")
                    #expect(await strataCode { _ = try await instance.source.get(KeyQuery("k")) } == .notFound)
                    _ = await first(changes) { $0 == .invalidateAll }
                    // The cache hears the same announcement on its own subscription, and drops what it held then.
                    #expect(try await eventually { !(await instance.holds("k")) })
                    #expect(
                        await strataCode { _ = try await instance.repository.get(KeyQuery("k"), operation: .cacheSync) }
                            == .notFound
                    )
                    _ = try await instance.source.put(Note(title: "k", revision: 2), in: KeyQuery("k"))
                    #expect(try await instance.repository.get(KeyQuery("k"), operation: .cacheSync).revision == 2)

                    // Dropped again, and made again by a source opened after the drop (another instance starting):
                    // the first instance's cache drops what it held, though no call of its own found the table gone.
                    // (Before, only a source that found the table missing in a call announced it: the cache went on
                    // serving revision 2 of a row that no longer existed.)
                    // (Changes heard from here on: one heard before, a new epoch of a late heartbeat on a loaded
                    // machine, would not be about the drop.)
                    let changesAfter = instance.source.changes(forKey: nil)
                    try await server.psql("DROP TABLE \(instance.source.table)")
                    let other: PostgresDataSource<Note> = try source(client, table: instance.source.table)
                    #expect(await strataCode { _ = try await other.get(KeyQuery("k")) } == .notFound)
                    _ = await first(changesAfter) { $0 == .invalidateAll }
                    #expect(try await eventually { !(await instance.holds("k")) })
                    #expect(
                        await strataCode { _ = try await instance.repository.get(KeyQuery("k"), operation: .cacheSync) }
                            == .notFound
                    )

                    // The table and its sequence both dropped, then made by a source opened afterwards, which cannot
                    // tell that from a first creation: it announces as one does. (Before, it announced nothing, and the
                    // cache went on serving revision 3.)
                    let heardAgain = instance.source.changes(forKey: "k")
                    _ = try await other.put(Note(title: "k", revision: 3), in: KeyQuery("k"))
                    _ = await first(heardAgain) { _ in true }
                    #expect(try await instance.repository.get(KeyQuery("k"), operation: .cacheSync).revision == 3)
                    #expect(try await instance.readIntoCache("k"))
                    let changesLast = instance.source.changes(forKey: nil)
                    let table = instance.source.table
                    try await server.psql("DROP TABLE \(table); DROP SEQUENCE \(table)_version")
                    let third: PostgresDataSource<Note> = try source(client, table: table)
                    #expect(await strataCode { _ = try await third.get(KeyQuery("k")) } == .notFound)
                    _ = await first(changesLast) { $0 == .invalidateAll }
                    #expect(try await eventually { !(await instance.holds("k")) })
                }
            }
        }

        @Test("hostile keys and values travel as parameters: stored and read back as they are, or refused with a code")
        func hostileKeysAndValues() async throws {
            try await withPostgres { _, client in
                // A key of 5,000 bytes is over the default maximumKeySize.
                let texts = try PostgresDataSource<String>(
                    client: client,
                    table: tableName(),
                    callTimeout: generousCallTimeout,
                    maximumKeySize: 5_000
                )
                let hostile = [
                    "'; DROP TABLE \(texts.table); --", "\" OR 1=1 --", "$1", "\\", "%_", "ключ", "🔑", "a:b:c",
                    String(repeating: "x", count: 5_000), "line\nbreak", "caf\u{E9}",
                ]
                for (index, key) in hostile.enumerated() {
                    let value = "\(key) \u{1F600} \"quoted\" \\ \(index)"
                    _ = try await texts.put(value, in: KeyQuery(key))
                    #expect(try await texts.get(KeyQuery(key)) == value)
                }
                #expect(try await texts.getAll(AllObjectsQuery()).count == hostile.count)
                #expect(try await texts.get(KeyQuery("cafe\u{301}")).hasPrefix("caf\u{E9}"))
                #expect(
                    await strataCode { _ = try await texts.put("v", in: KeyQuery("nul\u{0}key")) } == .invalidArgument
                )
                #expect(
                    await strataCode { _ = try await texts.put("nul\u{0}value", in: KeyQuery("k")) }
                        == .dataSerialization
                )
                #expect(await strataCode { _ = try await texts.get(KeyQuery("")) } == .invalidArgument)
            }
        }

        @Test("a row whose value no longer decodes is a data serialization error")
        func undecodableRow() async throws {
            try await withPostgres { server, client in
                let notes: PostgresDataSource<Note> = try source(client)
                _ = try await notes.put(Note(title: "k", revision: 1), in: KeyQuery("k"))
                try await server.psql("UPDATE \(notes.table) SET value = '\"not a note\"'::jsonb")
                #expect(await strataCode { _ = try await notes.get(KeyQuery("k")) } == .dataSerialization)
            }
        }

        /// Makes every insert and update of `table` fail with the server's error of that condition name and message,
        /// raised by a trigger of the table.
        private func refuseWrites(
            of table: String,
            _ condition: String,
            _ message: String,
            on server: PrivatePostgres
        ) async throws {
            try await server.psql(
                """
                CREATE FUNCTION \(table)_refuse() RETURNS trigger AS $$ BEGIN
                RAISE EXCEPTION '\(message)' USING ERRCODE = '\(condition)';
                END $$ LANGUAGE plpgsql;
                CREATE TRIGGER \(table)_refuse BEFORE INSERT OR UPDATE ON \(table)
                FOR EACH ROW EXECUTE FUNCTION \(table)_refuse();
                """
            )
        }
    }
#endif
