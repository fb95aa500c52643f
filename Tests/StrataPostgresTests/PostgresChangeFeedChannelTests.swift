#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import StrataMemory
    import Testing

    @testable import StrataPostgres

    /// A table's notifications travel on a channel of Strata's own, `strata:<table>`.
    @Suite(
        "PostgreSQL change feed: its channel",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresChangeFeedChannelTests {
        /// Before, the channel was the bare table name: another program's `NOTIFY` on a channel named as the table was
        /// taken for the table's (here, a change of every key: every cache emptied).
        @Test("a NOTIFY on the bare table name is another program's: the feed does not take it for the table's")
        func aForeignNotifyIsNotHeard() async throws {
            try await withPostgres { server, client in
                let instance = try Instance(client: client, table: tableName())
                let table = instance.source.table
                try await withFeed(instance.source) {
                    // The table made first: its creation is announced as a change of every key, a new epoch.
                    let start = instance.source.changes(forKey: "start")
                    _ = try await instance.source.put(Note(title: "start", revision: 1), in: KeyQuery("start"))
                    #expect(await first(start) { $0 == .put(key: "start") } != nil)
                    let feed = instance.source.feed
                    let epoch = try #require(feed.currentEpoch)
                    let end = instance.source.changes(forKey: "end")
                    try await server.psql(
                        "SELECT pg_notify('\(table)', '9000000000:p:x'), pg_notify('\(table)', '9:a:')"
                    )
                    _ = try await instance.source.put(Note(title: "end", revision: 1), in: KeyQuery("end"))
                    #expect(await first(end) { $0 == .put(key: "end") } != nil)
                    #expect(feed.currentEpoch == epoch)
                    #expect(feed.vouches(forKey: "x", tag: PostgresEntryTag(epoch: epoch, version: 1)))
                }
            }
        }

        @Test("the longest table name (41 characters) has a channel under 63 bytes, and its writes are heard")
        func theLongestTableNameIsHeard() async throws {
            try await withPostgres { _, client in
                let table = tableName() + String(repeating: "z", count: 41 - tableName().count)
                let instance = try Instance(client: client, table: table)
                #expect(feedChannel(of: instance.source) == "strata:\(table)")
                #expect(feedChannel(of: instance.source).utf8.count <= 63)
                try await withFeed(instance.source) {
                    let changes = instance.source.changes(forKey: "k")
                    _ = try await instance.source.put(Note(title: "k", revision: 1), in: KeyQuery("k"))
                    #expect(await first(changes) { $0 == .put(key: "k") } != nil)
                }
            }
        }
    }
#endif
