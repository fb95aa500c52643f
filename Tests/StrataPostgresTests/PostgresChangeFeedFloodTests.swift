#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import StrataMemory
    import StrataTesting
    import Testing

    @testable import StrataPostgres

    /// A burst of notifications on a table's channel costs the caches only the keys it names.
    @Suite(
        "PostgreSQL change feed: a flood of notifications",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresChangeFeedFloodTests {
        /// Before, any payload the triggers never write began a new epoch: each emptied every cache of the instance.
        @Test("20,000 notifications, half not the triggers' shape and half one key's changes, leave another key cached")
        func aFloodLeavesTheOtherKeysCached() async throws {
            try await withPostgres { server, client in
                // A heartbeat on a clock that never moves: none is sent, so none can come back late on a loaded
                // machine and begin the new epoch the test says the flood does not.
                let instance = try Instance(
                    client: client,
                    table: tableName(),
                    feed: PostgresChangeFeedConfiguration(clock: ManualClock())
                )
                try await withFeed(instance.source) {
                    let feed = instance.source.feed
                    let changes = instance.source.changes(forKey: nil)
                    _ = try await instance.source.putAll(
                        [Note(title: "x", revision: 1), Note(title: "k", revision: 1)],
                        in: IdsQuery(["x", "k"])
                    )
                    var heard: Set<String> = []
                    _ = await first(changes) { change in
                        if let key = change.key { heard.insert(key) }
                        return heard.count == 2
                    }
                    _ = try await instance.repository.get(KeyQuery("x"), operation: .cacheSync)
                    let cached = try await instance.memory.getEntry(KeyQuery("x"))
                    let epoch = try #require(feed.currentEpoch)
                    let end = instance.source.changes(forKey: "end")

                    // When one transaction sends 10,000 foreign payloads and 10,000 changes of "k", then "end"
                    try await server.psql(
                        """
                        SELECT pg_notify('\(feedChannel(of: instance.source))', CASE
                            WHEN i = 20001 THEN '3000000:p:end'
                            WHEN i % 2 = 0 THEN 'garbage ' || i
                            ELSE (1000000 + i)::text || ':p:k' END)
                        FROM generate_series(1, 20001) i
                        """
                    )
                    #expect(await first(end) { $0 == .put(key: "end") } != nil)

                    // Then the feed is in the same epoch, still vouches for "x", and knows the latest version of "k"
                    #expect(feed.currentEpoch == epoch)
                    #expect(feed.ignoredNotificationCount == 10_000)
                    #expect(feed.vouches(forKey: "x", tag: PostgresEntryTag(cached.metadata.eTag)))
                    #expect(!feed.vouches(forKey: "k", tag: PostgresEntryTag(epoch: epoch, version: 1_019_998)))
                    #expect(feed.vouches(forKey: "k", tag: PostgresEntryTag(epoch: epoch, version: 1_019_999)))
                    #expect(try await instance.repository.get(KeyQuery("x"), operation: .cacheSync).revision == 1)
                    #expect(await instance.holds("x"))
                }
            }
        }
    }
#endif
