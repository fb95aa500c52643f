#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import StrataMemory
    import StrataTestSupport
    import Testing

    @testable import StrataPostgres

    /// One instance of a fleet: its own client, source, memory cache and repository over a shared table.
    struct Instance: Sendable {
        let source: PostgresDataSource<Note>
        let memory: MemoryDataSource<Note>
        let repository: CacheRepository<PostgresDataSource<Note>, PostgresCoherentCache<MemoryDataSource<Note>>>

        init(client: PostgresClient, table: String, feed: PostgresChangeFeedConfiguration = .init()) throws {
            source = try PostgresDataSource<Note>(
                client: client,
                table: table,
                callTimeout: generousCallTimeout,
                feed: feed
            )
            memory = MemoryDataSource<Note>()
            repository = CacheRepository(main: source, cache: source.coherentCache(memory))
        }

        /// Whether the memory cache holds an entry for `key` (vouched for or not).
        func holds(_ key: String) async -> Bool { (try? await memory.get(KeyQuery(key))) != nil }

        /// Reads `key` through the repository (`.cacheSync`) until the memory cache holds it: whether it came to.
        /// A new epoch (the feed listened again, its heartbeat late on a loaded machine) empties the cache, and may do
        /// so right after a read filled it.
        func readIntoCache(_ key: String) async throws -> Bool {
            try await eventually {
                _ = try? await repository.get(KeyQuery(key), operation: .cacheSync)
                return await holds(key)
            }
        }
    }

    @Suite(
        "PostgreSQL change feed",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresChangeFeedTests {
        @Test("a write on one instance drops exactly that key from another's cache, and its stream emits the value")
        func crossInstanceInvalidation() async throws {
            try await withPostgres { server, writerClient in
                let table = tableName()
                let writer = try Instance(client: writerClient, table: table)
                try await withClient(on: server) { readerClient in
                    let reader = try Instance(client: readerClient, table: table)
                    try await withFeed(reader.source) {
                        let announced = reader.source.changes(forKey: nil)
                        _ = try await writer.repository.putAll(
                            [Note(title: "a", revision: 1), Note(title: "b", revision: 1)],
                            in: IdsQuery(["a", "b"]),
                            operation: .main
                        )
                        // Once the reader heard both writes, it caches both. A new epoch (the feed listened again,
                        // its heartbeat late on a loaded machine) announces every key instead.
                        var heard: Set<DataChange> = []
                        for await change in announced {
                            guard change != .invalidateAll else { break }
                            heard.insert(change)
                            if heard.count == 2 { break }
                        }
                        #expect(try await reader.readIntoCache("a"))
                        #expect(try await reader.readIntoCache("b"))
                        let epochBefore = reader.source.feed.currentEpoch

                        let changes = reader.source.changes(forKey: "a")
                        var responses = reader.repository.stream(KeyQuery("a"), operation: .cacheSync)
                            .makeAsyncIterator()
                        // Until the stream shows a value; a stream that ends (the test cancelled at its time limit)
                        // ends the wait too, and the expectations below fail instead of the loop spinning
                        while let response = await responses.next(), response.value == nil {}
                        _ = try await writer.repository.put(
                            Note(title: "a", revision: 2),
                            in: KeyQuery("a"),
                            operation: .main
                        )
                        #expect(await first(changes) { $0 == .put(key: "a") } != nil)
                        // "a" is gone, or already read again (revision 2) by the stream.
                        #expect((try? await reader.memory.get(KeyQuery("a")))?.revision ?? 2 == 2)
                        // "b" is still held, unless a new epoch emptied the cache.
                        #expect(await reader.holds("b") || reader.source.feed.currentEpoch != epochBefore)
                        while let response = await responses.next(), response.value?.revision != 2 {}
                        #expect(try await reader.repository.get(KeyQuery("a"), operation: .cacheSync).revision == 2)
                    }
                }
            }
        }

        @Test(
            "a key that begins with a combining mark is dropped from another instance's cache when written",
            arguments: ["\u{301}k", "k:\u{301}", "\u{301}"]
        )
        func keyBeginningWithACombiningMark(key: String) async throws {
            // The notification is "<version>:p:<key>": a key that begins with a combining mark makes the colon
            // before it one Character with it. (Before, the feed read such a payload as no notification of its own,
            // and the other instance's cache went on serving revision 1.)
            try await withPostgres { server, writerClient in
                let table = tableName()
                let writer = try Instance(client: writerClient, table: table)
                _ = try await writer.source.put(Note(title: key, revision: 1), in: KeyQuery(key))
                try await withClient(on: server) { readerClient in
                    let reader = try Instance(client: readerClient, table: table)
                    try await withFeed(reader.source) {
                        #expect(try await reader.readIntoCache(key))
                        _ = try await writer.source.put(Note(title: key, revision: 2), in: KeyQuery(key))

                        // (A new epoch, a late heartbeat's, would drop it too; the count below tells them apart.)
                        #expect(try await eventually(within: .seconds(20)) { !(await reader.holds(key)) })
                        #expect(try await reader.repository.get(KeyQuery(key), operation: .cacheSync).revision == 2)
                        #expect(reader.source.feed.ignoredNotificationCount == 0)
                    }
                }
            }
        }

        @Test("a read that began before a write and reaches the cache after its notification is not served")
        func lateCacheWriteIsRefused() async throws {
            try await withPostgres { _, client in
                let instance = try Instance(client: client, table: tableName())
                try await withFeed(instance.source) {
                    // Listening before the first write: its notification may arrive after the second write is
                    // sent, so the second one is to be waited for. Two notifications heard before the feed announces
                    // the first make one announcement, so the wait is for an announcement after which the feed no
                    // longer vouches for the older read: it records each version before announcing its key, and
                    // announces again a key it hears of after an announcement. A new epoch (the feed listened again,
                    // its heartbeat late on a loaded machine) announces every key instead, and ends the wait too.
                    let changes = instance.source.changes(forKey: "k")
                    _ = try await instance.source.put(Note(title: "k", revision: 1), in: KeyQuery("k"))
                    let old = try await instance.source.getEntry(KeyQuery("k"))
                    _ = try await instance.source.put(Note(title: "k", revision: 2), in: KeyQuery("k"))
                    let oldTag = PostgresEntryTag(old.metadata.eTag)
                    _ = await first(changes) { _ in !instance.source.feed.vouches(forKey: "k", tag: oldTag) }
                    // The older read lands in the cache after the newer write's notification.
                    _ = try await instance.repository.cache.putEntry(old, in: KeyQuery("k"))
                    #expect(await instance.holds("k"))
                    #expect(try await instance.repository.get(KeyQuery("k"), operation: .cacheSync).revision == 2)
                }
            }
        }

        /// A delete of a row whose version another program raised past the sequence is announced past the row's
        /// version: the feed no longer vouches for the deleted row, and a late read of it is not served. (The delete
        /// was announced with the sequence's next value, below the row's version, which the feed kept: the cache
        /// served the deleted row until the key was written again.)
        @Test("a delete of a row whose version was raised past the sequence: the deleted row is not served")
        func aDeleteOfARaisedVersionIsHeard() async throws {
            try await withPostgres { _, client in
                let instance = try Instance(client: client, table: tableName())
                try await withFeed(instance.source) {
                    _ = try await instance.source.put(Note(title: "k", revision: 1), in: KeyQuery("k"))
                    try await client.query(
                        PostgresQuery(
                            unsafeSQL: "UPDATE \(instance.source.table) SET version = version + 1000 WHERE key = 'k'"
                        )
                    )
                    // A read of the raised row, once the feed heard the raise (it no longer vouches for one below it)
                    let raised = try await instance.source.getEntry(KeyQuery("k"))
                    let tag = try #require(PostgresEntryTag(raised.metadata.eTag))
                    let below = PostgresEntryTag(epoch: tag.epoch, version: tag.version - 1)
                    #expect(try await eventually { !instance.source.feed.vouches(forKey: "k", tag: below) })

                    try await instance.source.delete(KeyQuery("k"))

                    #expect(try await eventually { !instance.source.feed.vouches(forKey: "k", tag: tag) })
                    // The read lands in the cache after the delete's notification: not served
                    _ = try await instance.repository.cache.putEntry(raised, in: KeyQuery("k"))
                    let error = await strataError {
                        _ = try await instance.repository.get(KeyQuery("k"), operation: .cacheSync)
                    }
                    #expect(error?.code == .notFound)
                }
            }
        }

        /// The stale entries a validating cache gives for a list read are handed out only while the feed vouches for
        /// them, as one key's are. (The coherent cache's list read passed them on unchecked in its `notValid` error,
        /// for a plan that serves stale values to serve with the feed not listening.)
        @Test("a list read's stale entries are vouched for as one key's are")
        func aListReadsStaleEntriesAreVouchedFor() async throws {
            try await withPostgres { _, client in
                let notes: PostgresDataSource<Note> = try source(client)
                let memory = MemoryDataSource<Note>()
                let cache = notes.coherentCache(memory.validated(by: ClosureValidator { _, _ in false }))
                let repository = CacheRepository(main: notes, cache: cache)
                // An entry tagged as a read of epoch 1 would be, while the feed does not listen
                let metadata = EntryMetadata(eTag: PostgresEntryTag(epoch: 1, version: 1).description)
                for key in ["k", "l"] {
                    _ = try await memory.putEntry(
                        StoredEntry(value: Note(title: key, revision: 1), metadata: metadata),
                        in: KeyQuery(key)
                    )
                }

                // The cache's own list read hands out no stale entry the feed cannot vouch for: a miss (a plan that
                // reads the list whole would have served them)
                let direct = await strataError { _ = try await cache.getAllEntries(IdsQuery(["k", "l"])) }
                #expect(direct?.code == .notFound)
                #expect(direct?.staleEntries(as: Note.self) == nil)

                // Nor does the repository, for one key or a list
                let one = await strataError {
                    _ = try await repository.get(KeyQuery("l"), operation: .cacheIgnoringValidation)
                }
                #expect(one?.code == .notFound)
                let list = await strataError {
                    _ = try await repository.getAll(IdsQuery(["k", "l"]), operation: .cacheIgnoringValidation)
                }
                #expect(list?.code == .notFound)
            }
        }

        /// An entry read at the largest version (another program set it; the triggers no longer raise it) is never
        /// vouched for: a read of it cannot be told from one made before a later write of the key. (It was served
        /// until the key's next write or the next epoch, after a newer write.)
        @Test("an entry at the largest version is never vouched for")
        func anEntryAtTheLargestVersionIsNeverVouchedFor() async throws {
            try await withPostgres { _, client in
                let notes: PostgresDataSource<Note> = try source(client)
                let memory = MemoryDataSource<Note>()
                let cache = notes.coherentCache(memory)
                try await withFeed(notes) {
                    let epoch = try #require(notes.feed.currentEpoch)
                    for (key, version) in [("k", Int64.max), ("l", 7)] {
                        let tag = PostgresEntryTag(epoch: epoch, version: version).description
                        _ = try await memory.putEntry(
                            StoredEntry(value: Note(title: key, revision: 1), metadata: EntryMetadata(eTag: tag)),
                            in: KeyQuery(key)
                        )
                    }

                    #expect(await strataError { _ = try await cache.getEntry(KeyQuery("k")) }?.code == .notFound)
                    #expect(try await cache.getEntry(KeyQuery("l")).value.title == "l")
                }
            }
        }

        @Test("a restarted server: typed errors while down, writes served again, a new epoch, nothing stale served")
        func serverRestart() async throws {
            try await withPostgres { server, client in
                let instance = try Instance(client: client, table: tableName())
                let other: PostgresDataSource<Note> = try source(client, table: instance.source.table)
                let impatient: PostgresDataSource<Note> = try source(
                    client,
                    table: instance.source.table,
                    callTimeout: .seconds(1)
                )
                let epochs = instance.source.changes(forKey: nil)
                try await withFeed(instance.source) {
                    let heard = instance.source.changes(forKey: "k")
                    _ = try await instance.source.put(Note(title: "k", revision: 1), in: KeyQuery("k"))
                    _ = await first(heard) { _ in true }
                    #expect(try await instance.readIntoCache("k"))
                    let epochBefore = try #require(instance.source.feed.currentEpoch)

                    try await server.halt()
                    // While the server is down a call fails (within its call timeout) with a retryable network error.
                    let down = await strataError { _ = try await impatient.get(KeyQuery("k")) }
                    #expect(down?.code == .network)
                    #expect(down?.isRetryable == true)
                    try await server.resume()
                    // The pool connects again by itself; a write waits for it. The feed may or may not hear the write,
                    // depending on whether it listens again before or after.
                    try await untilServed {
                        _ = try await other.put(Note(title: "k", revision: 2), in: KeyQuery("k"))
                    }
                    // The feed announces its new epoch as a change of every key. Once the stream has ended, the epoch
                    // is polled instead: a loop that only asked the ended stream spun and starved every other test.
                    let deadline = ContinuousClock.now + .seconds(30)
                    while instance.source.feed.currentEpoch == nil || instance.source.feed.currentEpoch == epochBefore {
                        guard await first(epochs, where: { $0 == .invalidateAll }) == nil else { continue }
                        guard ContinuousClock.now < deadline else {
                            Issue.record("the feed did not listen again within 30 seconds of the restart")
                            break
                        }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    // The new epoch is visible before the feed's second task has emptied the caches (it serves
                    // nothing older meanwhile): the cache is checked once that task had the time to run.
                    while await instance.holds("k"), ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    #expect(!(await instance.holds("k")))
                    #expect(try await instance.repository.get(KeyQuery("k"), operation: .cacheSync).revision == 2)
                }
            }
        }

        @Test("a notification not in the triggers' shape is ignored; a key too long to announce changes every key")
        func unreadableNotifications() async throws {
            try await withPostgres { server, client in
                let instance = try Instance(client: client, table: tableName())
                let changes = instance.source.changes(forKey: nil)
                try await withFeed(instance.source) {
                    let epoch = instance.source.feed.currentEpoch
                    try await server.psql("NOTIFY \"\(feedChannel(of: instance.source))\", 'garbage'")
                    #expect(try await eventually { instance.source.feed.ignoredNotificationCount == 1 })
                    #expect(instance.source.feed.currentEpoch == epoch)
                    // A key that long is over the default maximumKeySize: a source that allows it writes it.
                    let long = String(repeating: "k", count: 8_000)
                    let wide = try PostgresDataSource<Note>(
                        client: client,
                        table: instance.source.table,
                        callTimeout: generousCallTimeout,
                        maximumKeySize: 10_000
                    )
                    _ = try await wide.put(Note(title: long, revision: 1), in: KeyQuery(long))
                    // The stream still holds the change of every key the feed's first epoch announced.
                    while instance.source.feed.currentEpoch == epoch {
                        _ = await first(changes) { $0 == .invalidateAll }
                    }
                    #expect(instance.source.feed.currentEpoch.map { $0 >= (epoch ?? 0) + 1 } == true)
                    #expect(try await wide.get(KeyQuery(long)).title == long)
                }
            }
        }

        /// Before, another program's `UPDATE` kept the row's version (a cache vouched for the row it held before),
        /// a renamed key was never dropped, and a `TRUNCATE` announced nothing.
        @Test("another program's update, renamed key and truncate are heard by the feed")
        func changesMadeByAnotherProgram() async throws {
            try await withPostgres { server, client in
                let instance = try Instance(client: client, table: tableName())
                let table = instance.source.table
                try await withFeed(instance.source) {
                    let changes = instance.source.changes(forKey: nil)
                    _ = try await instance.source.putAll(
                        [Note(title: "a", revision: 1), Note(title: "b", revision: 1)],
                        in: IdsQuery(["a", "b"])
                    )
                    let before = try await instance.source.getEntry(KeyQuery("a")).metadata.eTag

                    try await server.psql(
                        "UPDATE \(table) SET value = jsonb_set(value, '{revision}', '2') WHERE key = 'a'"
                    )
                    let after = try await instance.source.getEntry(KeyQuery("a")).metadata.eTag
                    #expect(after != before, "\(String(describing: after))")

                    try await server.psql("UPDATE \(table) SET key = 'c' WHERE key = 'b'")
                    #expect(await first(changes) { $0 == .delete(key: "b") } != nil)

                    try await server.psql("TRUNCATE \(table)")
                    #expect(await first(changes) { $0 == .invalidateAll } != nil)
                }
            }
        }

        /// A write made where triggers left at their default do not fire (`session_replication_role = replica`: how
        /// logical replication applies changes) is stamped and heard too. Before, it was neither: every instance's
        /// cache kept serving the row it held.
        @Test("a write made in replica mode is stamped and heard by the feed")
        func aWriteInReplicaModeIsHeard() async throws {
            try await withPostgres { server, client in
                let instance = try Instance(client: client, table: tableName())
                let table = instance.source.table
                try await withFeed(instance.source) {
                    let changes = instance.source.changes(forKey: "a")
                    _ = try await instance.source.put(Note(title: "a", revision: 1), in: KeyQuery("a"))
                    let before = try await instance.source.getEntry(KeyQuery("a")).metadata.eTag

                    try await server.psql(
                        "SET session_replication_role = replica; "
                            + "UPDATE \(table) SET value = jsonb_set(value, '{revision}', '2') WHERE key = 'a'"
                    )

                    #expect(await first(changes) { $0 == .put(key: "a") } != nil)
                    let after = try await instance.source.getEntry(KeyQuery("a")).metadata.eTag
                    #expect(after != before, "\(String(describing: after))")
                }
            }
        }

        /// Triggers another program disabled, or switched back to firing in origin sessions only (`DISABLE TRIGGER ALL`
        /// then `ENABLE TRIGGER ALL`, as `pg_restore --data-only --disable-triggers` does), are repaired by the next
        /// source opened. Before, the schema statement saw their names and changed nothing: writes made in replica mode
        /// were neither stamped nor heard again, and a trigger left disabled was never noticed.
        @Test("triggers disabled or set back to origin-only are enabled always again by a source opened afterwards")
        func triggersSwitchedBackAreRepaired() async throws {
            try await withPostgres { server, client in
                let table = tableName()
                let opener = try Instance(client: client, table: table)
                _ = try await opener.source.put(Note(title: "a", revision: 1), in: KeyQuery("a"))
                try await server.psql(
                    "ALTER TABLE \(table) DISABLE TRIGGER ALL; ALTER TABLE \(table) ENABLE TRIGGER ALL"
                )

                let instance = try Instance(client: client, table: table)
                try await withFeed(instance.source) {
                    let changes = instance.source.changes(forKey: nil)
                    let before = try await instance.source.getEntry(KeyQuery("a")).metadata.eTag

                    try await server.psql(
                        "SET session_replication_role = replica; "
                            + "UPDATE \(table) SET value = jsonb_set(value, '{revision}', '2') WHERE key = 'a'"
                    )

                    // The feed records notifications as they come, in commit order: once a write made after the update
                    // is heard, the update's new version of `a` was recorded, and the entry read before is vouched for
                    // no more (nor after a new epoch, the feed having listened again on a loaded machine).
                    _ = try await instance.source.put(Note(title: "b", revision: 1), in: KeyQuery("b"))
                    _ = await first(changes) { $0 == .put(key: "b") || $0 == .invalidateAll }
                    let tag = try #require(PostgresEntryTag(before))
                    #expect(!instance.source.feed.vouches(forKey: "a", tag: tag))
                    let after = try await instance.source.getEntry(KeyQuery("a")).metadata.eTag
                    #expect(after != before, "\(String(describing: after))")
                }
            }
        }

        /// Before, the cache counted its time to live from the row's `updated_at`: a row written longer ago than that
        /// was stored already expired, and every read went to PostgreSQL.
        @Test("a row written long ago is cached for the cache's own time to live")
        func aRowWrittenLongAgoIsCached() async throws {
            try await withPostgres { server, client in
                let source: PostgresDataSource<Note> = try StrataPostgresTests.source(client, table: tableName())
                let memory = MemoryDataSource<Note>(countLimit: 100, timeToLive: .seconds(60))
                let repository = CacheRepository(main: source, cache: source.coherentCache(memory))
                // Written before the feed listens, so no notification of it can drop the key after the read
                _ = try await source.put(Note(title: "k", revision: 1), in: KeyQuery("k"))
                try await server.psql(
                    "UPDATE \(source.table) SET updated_at = now() - interval '1 day' WHERE key = 'k'"
                )
                try await withFeed(source) { () async throws in
                    #expect(try await repository.get(KeyQuery("k"), operation: .cacheSync).revision == 1)
                    #expect(memory.value(forKey: "k") != nil)
                }
            }
        }

        @Test("two feeds never count the same epochs")
        func feedsStartAtTheirOwnEpochs() async throws {
            try await withPostgres { _, client in
                let table = tableName()
                let first: PostgresDataSource<Note> = try StrataPostgresTests.source(client, table: table)
                let second: PostgresDataSource<Note> = try StrataPostgresTests.source(client, table: table)
                try await withFeed(first) {
                    try await withFeed(second) {
                        #expect(first.feed.currentEpoch != nil)
                        #expect(first.feed.currentEpoch != second.feed.currentEpoch)
                    }
                }
            }
        }
    }
#endif
