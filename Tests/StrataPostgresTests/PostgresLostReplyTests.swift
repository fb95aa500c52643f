#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import StrataTestSupport
    import Testing

    @testable import StrataPostgres

    /// A connection lost once a statement was sent: its write may have been carried out, its read changed nothing.
    @Suite(
        "PostgreSQL connections lost mid-statement",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresLostReplyTests {
        /// Before, a write whose connection closed after the server committed it was a retryable network error that
        /// said it had certainly not taken effect: a cache repository kept its copy as it was, and an outbox dropped
        /// nothing of what it knew, though the row had changed.
        @Test("a write whose connection is lost after it was sent may have taken effect; a read's did not")
        func aLostReplyMayHaveTakenEffect() async throws {
            try await withPostgres { server, client in
                let table = tableName()
                let direct: PostgresDataSource<String> = try source(client, table: table)
                _ = try await direct.put("old", in: KeyQuery("gone"))
                let proxy = try ListenStallingProxy.start(upstreamPort: server.port)
                proxy.stallsListen = false
                defer { proxy.stop() }
                try await withClient(port: proxy.port, user: server.user) { proxied in
                    let texts: PostgresDataSource<String> = try source(proxied, table: table)
                    #expect(try await texts.get(KeyQuery("gone")) == "old")
                    let writes: [(marker: String, write: @Sendable () async throws -> Void)] = [
                        ("unnest($1", { _ = try await texts.put("put", in: KeyQuery("a")) }),
                        ("unnest($1", { _ = try await texts.putAll(["all"], in: IdsQuery(["b"])) }),
                        ("$2::jsonb", { _ = try await texts.put("new", forKey: "c", ifVersion: nil) }),
                        ("DELETE FROM", { try await texts.delete(KeyQuery("gone")) }),
                    ]
                    for (marker, write) in writes {
                        // Given a connection closed once the server committed the write, its answer never sent
                        proxy.cutsReply = .init(marker: marker, passing: 0, closes: true)
                        let error = await strataError(write)
                        #expect(error?.code == .network, "\(marker): \(String(describing: error))")
                        #expect(error?.isRetryable == true, "\(marker)")
                        #expect(error?.mayHaveTakenEffect == true, "\(marker): \(String(describing: error))")
                        // The pool may still hand out the closed connection once (its next call fails unsent): the
                        // next write waits until a read is served.
                        try await untilServed { _ = try await texts.getAll(AllObjectsQuery()) }
                    }
                    // The writes were carried out.
                    #expect(Set(try await direct.getAll(IdsQuery(["a", "b", "c"]))) == ["put", "all", "new"])
                    let gone = await strataError { _ = try await direct.get(KeyQuery("gone")) }
                    #expect(gone?.code == .notFound, "\(String(describing: gone))")

                    // A read whose connection is lost changed nothing.
                    proxy.cutsReply = .init(marker: "key = $1", passing: 0, closes: true)
                    let error = await strataError { _ = try await texts.get(KeyQuery("a")) }
                    #expect(error?.code == .network, "\(String(describing: error))")
                    #expect(error?.mayHaveTakenEffect == false)
                }
            }
        }
    }
#endif
