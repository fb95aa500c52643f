#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import StrataMemory
    import StrataTestSupport
    import Testing

    @testable import StrataPostgres

    /// A cache slow to delete holds back neither the feed's notifications nor its memory.
    @Suite(
        "PostgreSQL change feed: its backlog is bounded",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresChangeFeedBacklogTests {
        /// A source whose feed keeps at most `pendingKeyLimit` keys waiting, its coherent cache over a
        /// ``StallingCache``, and a repository over both.
        private struct Stalled {
            let source: PostgresDataSource<Note>
            let stalling: StallingCache
            let repository: CacheRepository<PostgresDataSource<Note>, PostgresCoherentCache<StallingCache>>

            init(client: PostgresClient, pendingKeyLimit: Int) throws {
                source = try PostgresDataSource<Note>(
                    client: client,
                    table: tableName(),
                    callTimeout: generousCallTimeout,
                    feed: PostgresChangeFeedConfiguration(pendingKeyLimit: pendingKeyLimit)
                )
                stalling = StallingCache()
                repository = CacheRepository(main: source, cache: source.coherentCache(stalling))
            }

            /// Writes each key's first revision and reads it through the repository, so the cache holds it.
            func cache(_ keys: [String]) async throws {
                let changes = source.changes(forKey: nil)
                _ = try await source.putAll(keys.map { Note(title: $0, revision: 1) }, in: IdsQuery(keys))
                var heard: Set<String> = []
                _ = await first(changes) { change in
                    if let key = change.key { heard.insert(key) }
                    return heard.count == keys.count
                }
                for key in keys { _ = try await repository.get(KeyQuery(key), operation: .cacheSync) }
            }

            /// Closes the cache's gate and writes `key` again, so the feed's applier waits in its delete.
            func stallOn(_ key: String, revision: Int) async throws {
                stalling.close()
                _ = try await source.put(Note(title: key, revision: revision), in: KeyQuery(key))
                #expect(try await eventually { stalling.waitingCount >= 1 }, "the applier never reached the cache")
            }

            /// Whether the feed has recorded a version of `key` in its current epoch (so it has read its notification).
            func heard(_ key: String) -> Bool {
                guard let epoch = source.feed.currentEpoch else { return false }
                return !source.feed.vouches(forKey: key, tag: PostgresEntryTag(epoch: epoch, version: 0))
            }
        }

        /// The feed awaited every cache's delete before reading the next notification: while a cache was slow, the
        /// notifications piled up in the client and in the server's queue, which the whole cluster shares.
        @Test("past the pending bound a stalled cache costs a new epoch: the feed reads on, nothing stale is served")
        func aStalledCacheBeginsAnEpochPastTheBound() async throws {
            try await withPostgres { server, client in
                let instance = try Stalled(client: client, pendingKeyLimit: 8)
                try await withFeed(instance.source) {
                    // Given a cached key and a cache whose deletes wait, the applier waiting in one of them
                    try await instance.cache(["k"])
                    let stale = try await instance.source.getEntry(KeyQuery("k"))
                    let staleTag = try #require(PostgresEntryTag(stale.metadata.eTag))
                    let epochBefore = try #require(instance.source.feed.currentEpoch)
                    try await instance.stallOn("k", revision: 2)

                    // When 100 keys are announced, more than the bound of 8
                    let channel = feedChannel(of: instance.source)
                    try await server.psql(
                        "SELECT pg_notify('\(channel)', (1000000 + i)::text || ':p:burst' || i) FROM generate_series(1, 100) i"
                    )

                    // Then the feed reads them all while the cache waits, keeping at most 8 keys, in a new epoch
                    var mostPending = 0
                    let heardAll = try await eventually {
                        mostPending = max(mostPending, instance.source.feed.pendingKeyCount)
                        return instance.heard("burst100")
                    }
                    let epochs = instance.source.changes(forKey: nil)
                    instance.stalling.open()
                    #expect(heardAll, "the feed did not read the burst while the cache was stalled")
                    guard heardAll else { return }
                    #expect(mostPending <= 8)
                    #expect(instance.source.feed.pendingKeyCount <= 8)
                    #expect(try #require(instance.source.feed.currentEpoch) > epochBefore)
                    #expect(!instance.source.feed.vouches(forKey: "k", tag: staleTag))

                    // And once the cache answers, it is emptied, the new revision is served, and the feed still drops
                    // written keys
                    #expect(await first(epochs) { $0 == .invalidateAll } != nil)
                    #expect(try await instance.repository.get(KeyQuery("k"), operation: .cacheSync).revision == 2)
                    #expect(await instance.stalling.holds("k"))
                    let changes = instance.source.changes(forKey: "k")
                    _ = try await instance.source.put(Note(title: "k", revision: 3), in: KeyQuery("k"))
                    #expect(await first(changes) { $0 == .put(key: "k") } != nil)
                    #expect(!(await instance.stalling.holds("k")))
                    #expect(try await instance.repository.get(KeyQuery("k"), operation: .cacheSync).revision == 3)
                }
            }
        }

        /// A key deleted, then inserted again with a version below the delete's (the insert's stamp trigger ran before it
        /// waited for the delete's row lock), both heard while the cache waits: announced as what it is now, a put, in
        /// the order PostgreSQL committed them. Before, the larger version won: the key was announced deleted, and a
        /// stream of it showed it gone while it existed.
        @Test("a key deleted and inserted again below the delete's version is announced as a put")
        func aReinsertBelowTheDeletesVersionIsAnnouncedAsAPut() async throws {
            try await withPostgres { server, client in
                let instance = try Stalled(client: client, pendingKeyLimit: 8)
                try await withFeed(instance.source) {
                    // Given a cached key k, the applier waiting in the delete of another key
                    try await instance.cache(["k", "x"])
                    try await instance.stallOn("x", revision: 2)

                    // When k's delete (version 4,000,000) and then its insert (3,000,000) are heard, in that order
                    let changes = instance.source.changes(forKey: "k")
                    let channel = feedChannel(of: instance.source)
                    // (then z's, heard after both: the feed reads notifications in order)
                    try await server.psql(
                        "SELECT pg_notify('\(channel)', '4000000:d:k'); SELECT pg_notify('\(channel)', '3000000:p:k'); "
                            + "SELECT pg_notify('\(channel)', '3000001:p:z')"
                    )
                    #expect(try await eventually { instance.source.feed.pendingKeyCount == 2 })
                    instance.stalling.open()

                    // Then k is announced as a put
                    let heard = await first(changes) { $0.key == "k" }
                    #expect(heard == .put(key: "k"))
                }
            }
        }

        @Test("under the pending bound each changed key is dropped and announced once, with its latest change")
        func underTheBoundEveryKeyIsDropped() async throws {
            try await withPostgres { _, client in
                let instance = try Stalled(client: client, pendingKeyLimit: 8)
                try await withFeed(instance.source) {
                    // Given five cached keys, the applier waiting in the delete of a
                    let keys = ["a", "b", "c", "d", "e"]
                    try await instance.cache(keys)
                    let epoch = instance.source.feed.currentEpoch
                    let changes = instance.source.changes(forKey: nil)
                    try await instance.stallOn("a", revision: 2)

                    // When a is written again, b deleted and c written, while the cache waits
                    _ = try await instance.source.put(Note(title: "a", revision: 3), in: KeyQuery("a"))
                    try await instance.source.delete(KeyQuery("b"))
                    _ = try await instance.source.put(Note(title: "c", revision: 2), in: KeyQuery("c"))
                    #expect(try await eventually { instance.source.feed.pendingKeyCount == 3 })
                    instance.stalling.open()

                    // Then exactly a, b and c are dropped, each announced as its latest change, in the same epoch
                    var heard: [DataChange] = []
                    _ = await first(changes) { change in
                        heard.append(change)
                        return heard.filter { $0 == .put(key: "a") }.count == 2
                            && heard.contains(.delete(key: "b")) && heard.contains(.put(key: "c"))
                    }
                    #expect(heard.count == 4)
                    #expect(!heard.contains(.invalidateAll))
                    #expect(instance.source.feed.currentEpoch == epoch)
                    for key in ["a", "b", "c"] { #expect(!(await instance.stalling.holds(key)), "\(key)") }
                    for key in ["d", "e"] { #expect(await instance.stalling.holds(key), "\(key)") }
                    #expect(try await instance.repository.get(KeyQuery("a"), operation: .cacheSync).revision == 3)
                    let deleted = await strataCode {
                        _ = try await instance.repository.get(KeyQuery("b"), operation: .cacheSync)
                    }
                    #expect(deleted == .notFound)
                }
            }
        }
    }

    /// A memory cache whose deletes wait while its gate is closed: a cache slow to delete.
    final class StallingCache: DataSource {
        let memory = MemoryDataSource<Note>()
        private let gate = AsyncGate(isOpen: true)

        /// How many deletes wait at the gate now.
        var waitingCount: Int { gate.waitingCount }

        /// Makes the next deletes wait.
        func close() { gate.close() }

        /// Lets every waiting delete through, and the next ones.
        func open() { gate.open() }

        /// Whether the memory holds an entry for `key` (vouched for or not).
        func holds(_ key: String) async -> Bool { (try? await memory.get(KeyQuery(key))) != nil }

        func get(_ query: any Query) async throws -> Note { try await memory.get(query) }
        func getAll(_ query: any Query) async throws -> [Note] { try await memory.getAll(query) }
        func getEntry(_ query: any Query) async throws -> StoredEntry<Note> { try await memory.getEntry(query) }
        func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Note>] {
            try await memory.getAllEntries(query)
        }
        func put(_ value: Note, in query: any Query) async throws -> Note { try await memory.put(value, in: query) }
        func putAll(_ values: [Note], in query: any Query) async throws -> [Note] {
            try await memory.putAll(values, in: query)
        }
        func putEntry(_ entry: StoredEntry<Note>, in query: any Query) async throws -> Note {
            try await memory.putEntry(entry, in: query)
        }
        func putAllEntries(_ entries: [StoredEntry<Note>], in query: any Query) async throws -> [Note] {
            try await memory.putAllEntries(entries, in: query)
        }
        func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
            try await memory.renewMetadata(metadata, in: query)
        }

        func delete(_ query: any Query) async throws {
            await gate.enter()
            try await memory.delete(query)
        }
    }
#endif
