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
        /// Before, the sequence was made again starting at 1 and the `version` column kept no default (the `CASCADE`
        /// of the drop took it): every put failed with a not-null violation, and a conditional write's versions began
        /// again at 1, below the versions already read.
        @Test("a dropped version sequence is made again past the table's versions, with the column's default")
        func droppedSequence() async throws {
            try await withPostgres { _, client in
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
        }
    }
#endif
