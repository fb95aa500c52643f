#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import StrataMemory
    import Testing

    @testable import StrataPostgres

    @Suite(
        "PostgreSQL behind a CacheRepository",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresRepositoryTests {
        @Test("every operation works with PostgreSQL as main and a coherent memory cache")
        func everyOperation() async throws {
            try await withPostgres { _, client in
                let notes: PostgresDataSource<Note> = try source(client)
                let memory = MemoryDataSource<Note>()
                let repository = CacheRepository(main: notes, cache: notes.coherentCache(memory))
                try await withFeed(notes) {
                    let one = Note(title: "one", revision: 1)
                    let heard = notes.changes(forKey: "a")
                    _ = try await repository.put(one, in: KeyQuery("a"), operation: .mainSync)
                    // The feed hears the table's creation (a new epoch) and the write after the put returned: until it
                    // has, a read cached now would be dropped, or outdated, by them a moment later.
                    #expect(await first(heard) { $0 == .put(key: "a") } != nil)
                    #expect(try await repository.get(KeyQuery("a"), operation: .main) == one)
                    // The repository's own write carries no version: the cache does not serve it, main does.
                    #expect(
                        await strataCode { _ = try await repository.get(KeyQuery("a"), operation: .cache) } == .notFound
                    )
                    #expect(try await repository.get(KeyQuery("a"), operation: .mainSync) == one)
                    #expect(try await repository.get(KeyQuery("a"), operation: .cache) == one)
                    #expect(try await repository.get(KeyQuery("a"), operation: .cacheSync) == one)
                    #expect(try await repository.get(KeyQuery("a"), operation: .default) == one)

                    let two = Note(title: "two", revision: 2)
                    _ = try await repository.put(two, in: KeyQuery("b"), operation: .cacheSync)
                    #expect(try await notes.get(KeyQuery("b")) == two)
                    _ = try await repository.put(two, in: KeyQuery("c"), operation: .main)
                    _ = try await repository.putAll([one, two], in: IdsQuery(["d", "e"]), operation: .default)
                    #expect(try await repository.getAll(IdsQuery(["e", "d"]), operation: .cacheSync) == [two, one])
                    #expect(try await repository.getAll(AllObjectsQuery(), operation: .cacheSync).count == 5)
                    #expect(
                        try await repository.getAll(
                            PaginationOffsetLimitQuery(offset: 3, limit: 5),
                            operation: .default
                        ) == [one, two]
                    )

                    try await repository.delete(KeyQuery("a"), operation: .mainSync)
                    #expect(
                        await strataCode { _ = try await repository.get(KeyQuery("a"), operation: .cacheSync) }
                            == .notFound
                    )
                    try await repository.delete(IdsQuery(["b", "c"]), operation: .cacheSync)
                    try await repository.delete(AllObjectsQuery(), operation: .default)
                    #expect(try await notes.getAll(AllObjectsQuery()).isEmpty)
                }
            }
        }

        /// A repository forgets the list answer its cache stored when main's newer listing cannot be stored: through
        /// a coherent cache that word reaches the wrapped cache as it is. Before, the coherent cache took it for a
        /// query it cannot tell the entries of, and emptied the wrapped cache.
        @Test("forgetting the stored list answer through a coherent cache removes no entry")
        func forgettingTheListAnswerKeepsTheEntries() async throws {
            try await withPostgres { _, client in
                let notes: PostgresDataSource<Note> = try source(client)
                let memory = MemoryDataSource<Note>()
                memory.setValue(Note(title: "kept", revision: 1), forKey: "a")
                try await notes.coherentCache(memory).delete(StoredListAnswerQuery(AllObjectsQuery()))
                #expect(memory.count == 1)
            }
        }

        /// Before, the coherent cache handed the filter to the memory cache, which refuses it: the rows were deleted,
        /// then the call failed with `cacheSyncFailed` (and a `.cacheSync` delete failed before PostgreSQL was asked).
        @Test("a filter delete through a coherent memory cache deletes, succeeds and leaves no deleted row cached")
        func filterDelete() async throws {
            try await withPostgres { _, client in
                let notes: PostgresDataSource<Note> = try source(client)
                let memory = MemoryDataSource<Note>()
                let repository = CacheRepository(main: notes, cache: notes.coherentCache(memory))
                try await withFeed(notes) {
                    let operations: [any RepositoryOperation] = [
                        MainSyncOperation(), CacheSyncOperation(), DefaultOperation(),
                    ]
                    for operation in operations {
                        let rows = [Note(title: "a", revision: 1), Note(title: "b", revision: 2)]
                        _ = try await notes.putAll(rows, in: IdsQuery(["a", "b"]))
                        // Both rows cached, with their versions, from main.
                        #expect(try await repository.getAll(IdsQuery(["a", "b"]), operation: .mainSync) == rows)
                        try await repository.delete(TitleQuery(title: "a"), operation: operation)
                        #expect(try await notes.getAll(AllObjectsQuery()).map(\.title) == ["b"], "\(operation)")
                        #expect(
                            await strataCode { _ = try await repository.get(KeyQuery("a"), operation: .cache) }
                                == .notFound,
                            "\(operation)"
                        )
                        #expect(try await repository.get(KeyQuery("b"), operation: .default).title == "b")
                        try await notes.delete(AllObjectsQuery())
                    }
                }
            }
        }
    }

    /// The notes of one title: a filter only PostgreSQL answers.
    struct TitleQuery: PostgresFilterQuery {
        let title: String

        var condition: PostgresQuery { "value->>'title' = \(title)" }
    }
#endif
