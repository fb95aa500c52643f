#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import StrataMemory
    import Testing

    @testable import StrataPostgres

    @Suite(
        "A coherent cache's streams",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresCoherentStreamTests {
        /// Before, the feed dropped the changed key (or, in a new epoch, every key) from the memory store, which
        /// announced a deletion: a stream of the key showed `notFound` ("deleted") before it read the value again.
        @Test("a key another instance writes, and a new epoch, reach a stream as a value, never as an error")
        func aDroppedCopyIsNoDeletion() async throws {
            try await withPostgres { server, writerClient in
                let table = tableName()
                let writer = try Instance(client: writerClient, table: table)
                try await withClient(on: server) { readerClient in
                    let reader = try Instance(client: readerClient, table: table)
                    try await withFeed(reader.source) {
                        let one = Note(title: "a", revision: 1)
                        _ = try await writer.repository.put(one, in: KeyQuery("a"), operation: .main)
                        #expect(try await reader.readIntoCache("a"))
                        var responses = reader.repository.stream(KeyQuery("a"), operation: .cacheSync)
                            .makeAsyncIterator()
                        var errors: [String] = []
                        /// Reads responses until one shows `revision`, keeping the errors seen on the way.
                        func read(until revision: Int) async {
                            while let response = await responses.next() {
                                if let error = response.error { errors.append("\(error)") }
                                if response.value?.revision == revision { return }
                            }
                        }
                        await read(until: 1)

                        // When another instance writes the key
                        let second = Note(title: "a", revision: 2)
                        _ = try await writer.repository.put(second, in: KeyQuery("a"), operation: .main)
                        await read(until: 2)
                        // And when the feed begins a new epoch (a change of every key), which empties the cache
                        let epochs = reader.source.changes(forKey: nil)
                        try await server.psql("SELECT pg_notify('\(feedChannel(of: reader.source))', '1:a:')")
                        #expect(await first(epochs) { $0 == .invalidateAll } != nil)
                        _ = try await writer.repository.put(
                            Note(title: "a", revision: 3),
                            in: KeyQuery("a"),
                            operation: .main
                        )
                        await read(until: 3)

                        // Then the stream showed each value, and no error between them
                        #expect(errors.isEmpty)
                    }
                }
            }
        }
    }
#endif
