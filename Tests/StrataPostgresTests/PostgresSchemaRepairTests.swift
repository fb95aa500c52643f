#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import Testing

    @testable import StrataPostgres

    @Suite(
        "PostgreSQL schema repairs",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresSchemaRepairTests {
        /// The three checks of what the schema statement makes and repairs, on one server: each of them on a server of
        /// its own made the trait suites' parallel run start three more servers at once, and the load starved the
        /// transports' timing tests.
        @Test("the schema statement repairs a dropped sequence, keeps versions growing and indexes the key order")
        func schemaRepairsAndIndexes() async throws {
            try await withPostgres { server, client in
                try await droppedSequence(client)
                try await versionsOnlyGrow(client)
                try await theLargestVersionKeepsTheKeyWritable(client)
                try await insertsTakeNewVersions(client)
                try await PostgresOrderedReads.orderedReadsUseAnIndex(server, client)
            }
        }

        /// A dropped version sequence is made again past the table's versions, with the column's default.
        ///
        /// Before, the sequence was made again starting at 1 and the `version` column kept no default (the `CASCADE`
        /// of the drop took it): every put failed with a not-null violation, and a conditional write's versions began
        /// again at 1, below the versions already read.
        private func droppedSequence(_ client: PostgresClient) async throws {
            let notes: PostgresDataSource<Note> = try source(client)
            for revision in 1...3 {
                _ = try await notes.put(Note(title: "a", revision: revision), in: KeyQuery("a"))
            }
            _ = try await notes.put(Note(title: "b", revision: 1), in: KeyQuery("b"))
            let highest = try await notes.versionedValue(forKey: "b").version
            // The source that saw the table goes on writing: its statement finds the sequence missing.
            try await client.query(PostgresQuery(unsafeSQL: "DROP SEQUENCE \(notes.table)_version CASCADE"))
            _ = try await notes.put(Note(title: "c", revision: 1), in: KeyQuery("c"))
            let c = try await notes.versionedValue(forKey: "c").version
            #expect(c > highest)
            // A source opened after the drop makes the sequence again at its first call.
            try await client.query(PostgresQuery(unsafeSQL: "DROP SEQUENCE \(notes.table)_version CASCADE"))
            let reopened: PostgresDataSource<Note> = try source(client, table: notes.table)
            _ = try await reopened.put(Note(title: "d", revision: 1), in: KeyQuery("d"))
            let d = try await reopened.versionedValue(forKey: "d").version
            #expect(d > c)
            let (_, a) = try await reopened.versionedValue(forKey: "a")
            let next = try await reopened.put(Note(title: "a", revision: 4), forKey: "a", ifVersion: a)
            #expect(next > d)
            _ = try await notes.putAll([Note(title: "e", revision: 1)], in: IdsQuery(["e"]))
            #expect(try await notes.versionedValue(forKey: "e").version > next)
        }

        /// A key's version only grows, whatever version another program's update sets.
        ///
        /// Before, the stamp trigger gave a new version only to an update that left it as it was: another program's
        /// update could lower it (a restore from a backup), and after one that raised it past the sequence, the source's
        /// own next write lowered it; a writer holding an old version could then overwrite a row it never read.
        private func versionsOnlyGrow(_ client: PostgresClient) async throws {
            let notes: PostgresDataSource<Note> = try source(client)
            _ = try await notes.put(Note(title: "a", revision: 1), in: KeyQuery("a"))
            _ = try await notes.put(Note(title: "a", revision: 2), in: KeyQuery("a"))
            var last = try await notes.versionedValue(forKey: "a").version
            for version in ["1", "version", "version - 1", "NULL", "version + 1000"] {
                try await client.query(
                    PostgresQuery(
                        unsafeSQL: """
                            UPDATE \(notes.table) SET value = '{"title": "other", "revision": 0}',
                                version = \(version) WHERE key = 'a'
                            """
                    )
                )
                let set = try await notes.versionedValue(forKey: "a").version
                #expect(set > last, "\(version)")
                // The source's own next write, whose version comes from the sequence, still makes a larger one.
                let written = try await notes.put(Note(title: "a", revision: 3), forKey: "a", ifVersion: set)
                #expect(written > set, "\(version)")
                _ = try await notes.put(Note(title: "a", revision: 4), in: KeyQuery("a"))
                last = try await notes.versionedValue(forKey: "a").version
                #expect(last > written, "\(version)")
            }
        }

        /// A key whose version another program set to the largest `bigint` is still written and deleted, at that
        /// version: it cannot grow past it.
        ///
        /// Before, the triggers added one to it: every later write of the key (an update, a rename, a delete) failed
        /// with `22003`, the key blocked for good.
        private func theLargestVersionKeepsTheKeyWritable(_ client: PostgresClient) async throws {
            let notes: PostgresDataSource<Note> = try source(client)
            _ = try await notes.put(Note(title: "m", revision: 1), in: KeyQuery("m"))
            try await client.query(
                PostgresQuery(unsafeSQL: "UPDATE \(notes.table) SET version = 9223372036854775807 WHERE key = 'm'")
            )
            #expect(try await notes.versionedValue(forKey: "m").version == .max)
            _ = try await notes.put(Note(title: "m", revision: 2), in: KeyQuery("m"))
            #expect(try await notes.versionedValue(forKey: "m") == (Note(title: "m", revision: 2), .max))
            #expect(try await notes.put(Note(title: "m", revision: 3), forKey: "m", ifVersion: .max) == .max)
            try await client.query(
                PostgresQuery(unsafeSQL: "UPDATE \(notes.table) SET key = 'n', version = version WHERE key = 'm'")
            )
            try await notes.delete(KeyQuery("n"))
            #expect(await strataCode { _ = try await notes.get(KeyQuery("n")) } == .notFound)
        }

        /// Another program's insert takes a new version, whatever version it gives: a row restored from a backup with
        /// the version it had before it was deleted is not that version again.
        ///
        /// Before, the insert kept the version it gave: a writer still holding the deleted row's version overwrote the
        /// restored row it never read (`put(_:forKey:ifVersion:)` found its version again), an empty version failed
        /// the insert, and one past the sequence stood above the source's next versions of other keys.
        private func insertsTakeNewVersions(_ client: PostgresClient) async throws {
            let notes: PostgresDataSource<Note> = try source(client)
            _ = try await notes.put(Note(title: "r", revision: 1), in: KeyQuery("r"))
            let deleted = try await notes.versionedValue(forKey: "r").version
            try await notes.delete(KeyQuery("r"))
            var last = deleted
            for version in ["\(deleted)", "1", "NULL", "9223372036854775000"] {
                try await client.query(
                    PostgresQuery(
                        unsafeSQL: """
                            INSERT INTO \(notes.table) (key, value, version)
                                VALUES ('r', '{"title": "restored", "revision": 1}', \(version))
                            """
                    )
                )
                let restored = try await notes.versionedValue(forKey: "r").version
                #expect(restored > last, "\(version)")
                // The writer that held the deleted row's version finds it no more.
                let stale = await strataCode {
                    _ = try await notes.put(Note(title: "r", revision: 2), forKey: "r", ifVersion: deleted)
                }
                #expect(stale == .conflict, "\(version)")
                // The source's own next write of another key still makes a larger version.
                _ = try await notes.put(Note(title: "s", revision: 1), in: KeyQuery("s"))
                last = try await notes.versionedValue(forKey: "s").version
                #expect(last > restored, "\(version)")
                try await notes.delete(KeyQuery("r"))
            }
        }
    }
#endif
