#if Postgres
    import Foundation
    import PostgresNIO
    import PrivatePostgres
    import Strata
    import StrataTestSupport
    import Testing

    @testable import StrataPostgres

    /// A row another program wrote, or a table that grew, cannot make a read take unbounded memory.
    @Suite(
        "PostgreSQL reads and writes are bounded",
        .enabled(if: postgresAvailable, "PostgreSQL is not installed"),
        .timeLimit(.minutes(2))
    )
    struct PostgresReadBoundsTests {
        /// A source over `table` with small limits.
        func bounded<Value>(
            _ client: PostgresClient,
            table: String,
            maximumValueSize: Int = 64 * 1024 * 1024,
            maximumRowCount: Int = 100_000
        ) throws -> PostgresDataSource<Value> {
            try PostgresDataSource<Value>(
                client: client,
                table: table,
                callTimeout: generousCallTimeout,
                maximumValueSize: maximumValueSize,
                maximumRowCount: maximumRowCount
            )
        }

        /// A new table of 20 rows of 10,000 bytes of JSON each (`k1` to `k20`), written by another program, and
        /// `seed`; its source.
        func largeRows(_ server: PrivatePostgres, _ client: PostgresClient) async throws -> PostgresDataSource<String> {
            let writer: PostgresDataSource<String> = try source(client)
            _ = try await writer.put("seed", in: KeyQuery("seed"))
            try await server.psql(
                "INSERT INTO \(writer.table) (key, value) SELECT 'k' || n, to_jsonb(repeat('x', 9998)) "
                    + "FROM generate_series(1, 20) AS n"
            )
            return writer
        }

        /// The value was read whole (and copied three or four times) however large it was.
        @Test("a row whose value is over the limit is tooLarge on every read, and the server never sends it")
        func anOversizedRowIsNotSent() async throws {
            try await withPostgres { server, client in
                let writer: PostgresDataSource<String> = try source(client)
                let reader: PostgresDataSource<String> = try bounded(
                    client,
                    table: writer.table,
                    maximumValueSize: 1_000
                )
                _ = try await writer.put("small", in: KeyQuery("small"))
                // Written by another program: 5,000 bytes of JSON.
                try await server.psql(
                    "INSERT INTO \(writer.table) (key, value) VALUES ('big', to_jsonb(repeat('x', 4998)))"
                )
                #expect(try await reader.get(KeyQuery("small")) == "small")
                let reads: [@Sendable () async throws -> Void] = [
                    { _ = try await reader.get(KeyQuery("big")) },
                    { _ = try await reader.getAll(AllObjectsQuery()) },
                    { _ = try await reader.getAll(IdsQuery(["small", "big"])) },
                    { _ = try await reader.getAll(PaginationOffsetLimitQuery(offset: 0, limit: 10)) },
                    { _ = try await reader.getAll(FirstKey()) },
                    { _ = try await reader.versionedValue(forKey: "big") },
                ]
                await expectTooLarge(reads, naming: "5000 bytes")
                // The server sends NULL and the length in its place.
                let rows = try await reader.run(reader.sql.selectOne, PostgresDataSource<String>.bindings("big"))
                let row = try #require(rows.first)
                let decoded = try row.decode((String, String?, Int32, Int64, Date).self)
                #expect(decoded.1 == nil)
                #expect(decoded.2 == 5_000)
            }
        }

        /// Before, only each value and the row count were bounded: a listing of many values, each under its bound, was
        /// read whole, however many bytes they made together.
        @Test("a read whose rows hold more than maximumReadSize bytes is tooLarge; a smaller one reads")
        func aReadPastTheByteBoundIsTooLarge() async throws {
            try await withPostgres { server, client in
                let writer = try await largeRows(server, client)
                let reader = try PostgresDataSource<String>(
                    client: client,
                    table: writer.table,
                    callTimeout: generousCallTimeout,
                    maximumReadSize: 50_000
                )

                let error = await strataError { _ = try await reader.getAll(AllObjectsQuery()) }
                #expect(error?.code == .tooLarge)
                #expect(error?.message.contains("maximumReadSize") == true, "\(String(describing: error))")
                #expect(try await reader.getAll(IdsQuery(["k1", "k2", "k3"])).count == 3)
                #expect(try await reader.get(KeyQuery("k20")).count == 9_998)
            }
        }

        /// Before, the read that passed the bound gave its connection back to the pool while postgres-nio still read
        /// (and dropped) the rest of its rows: the next call given that connection waited behind them, past its call
        /// timeout when the rest were slow to come, and failed as a network error that may have taken effect.
        @Test("a read past maximumReadSize closes its connection: the next call of a one-connection pool is answered")
        func aReadPastTheByteBoundFreesItsConnection() async throws {
            try await withPostgres { server, client in
                let writer = try await largeRows(server, client)
                let proxy = try ListenStallingProxy.start(upstreamPort: server.port)
                proxy.stallsListen = false
                defer { proxy.stop() }
                try await withClient(port: proxy.port, user: server.user, maximumConnections: 1) { pooled in
                    let reader = try PostgresDataSource<String>(
                        client: pooled,
                        table: writer.table,
                        callTimeout: .seconds(10),
                        maximumReadSize: 25_000
                    )
                    #expect(try await reader.get(KeyQuery("k1")).count == 9_998)
                    // Given a listing whose rows stop coming once past the bound (the rest of them never arrive)
                    proxy.cutsReply = .init(marker: "ORDER BY key", passing: 40_000, closes: false)

                    let error = await strataError { _ = try await reader.getAll(AllObjectsQuery()) }
                    #expect(error?.code == .tooLarge, "\(String(describing: error))")

                    // Then the pool's one connection is not left waiting for them
                    #expect(try await reader.get(KeyQuery("k20")).count == 9_998)
                }
            }
        }

        /// A write was sent whatever its size.
        @Test("a write whose JSON is over the limit is tooLarge and nothing is stored; one at the limit reads back")
        func anOversizedWriteIsRefused() async throws {
            try await withPostgres { _, client in
                let texts: PostgresDataSource<String> = try bounded(client, table: tableName(), maximumValueSize: 100)
                // A string of 98 characters is 100 bytes of JSON with its quotes.
                let atTheLimit = String(repeating: "a", count: 98)
                let over = String(repeating: "b", count: 99)
                _ = try await texts.put(atTheLimit, in: KeyQuery("k"))
                #expect(try await texts.get(KeyQuery("k")) == atTheLimit)
                let writes: [@Sendable () async throws -> Void] = [
                    { _ = try await texts.put(over, in: KeyQuery("k")) },
                    { _ = try await texts.putAll(["fine", over], in: IdsQuery(["a", "b"])) },
                    { _ = try await texts.put(over, forKey: "c", ifVersion: nil) },
                ]
                await expectTooLarge(writes, naming: "101 bytes")
                #expect(try await texts.getAll(AllObjectsQuery()) == [atTheLimit])
            }
        }

        /// `AllObjectsQuery` read the whole table, however many rows it had; so did every other read of several rows.
        @Test("a read that would answer more rows than the limit is tooLarge, whatever the query; one within answers")
        func aReadOfTooManyRowsIsRefused() async throws {
            try await withPostgres { _, client in
                let texts: PostgresDataSource<String> = try bounded(client, table: tableName(), maximumRowCount: 3)
                let keys = ["a", "b", "c"]
                _ = try await texts.putAll(keys, in: IdsQuery(keys))
                #expect(try await texts.getAll(AllObjectsQuery()) == keys)
                #expect(try await texts.getAll(FirstKey()) == ["a"])
                _ = try await texts.put("d", in: KeyQuery("d"))
                let reads: [@Sendable () async throws -> Void] = [
                    { _ = try await texts.getAll(AllObjectsQuery()) },
                    { _ = try await texts.getAll(IdsQuery(["a", "b", "c", "d"])) },
                    { _ = try await texts.getAll(PaginationOffsetLimitQuery(offset: 0, limit: 10)) },
                    { _ = try await texts.getAll(AnyValue()) },
                    { _ = try await texts.getAll(FirstKey()) },
                    { try await texts.delete(FirstKey()) },
                ]
                await expectTooLarge(reads, naming: "more than 3 rows")
                // Reads within the bound still answer.
                #expect(try await texts.getAll(PaginationOffsetLimitQuery(offset: 1, limit: 3)) == ["b", "c", "d"])
                #expect(try await texts.getAll(IdsQuery(["d", "a"])) == ["d", "a"])
                #expect(try await texts.get(KeyQuery("d")) == "d")
                try await texts.delete(AllObjectsQuery())
                #expect(try await texts.getAll(AllObjectsQuery()).isEmpty)
            }
        }

        @Test("a limit below 1 is refused")
        func limitsBelowOneAreRefused() async throws {
            try await withPostgres { _, client in
                for (size, rows) in [(0, 1), (1, 0), (-1, 10), (10, Int.min)] {
                    #expect(throws: StrataError.self) {
                        try PostgresDataSource<String>(
                            client: client,
                            table: tableName(),
                            maximumValueSize: size,
                            maximumRowCount: rows
                        )
                    }
                }
                let unbounded: PostgresDataSource<String> = try bounded(
                    client,
                    table: tableName(),
                    maximumValueSize: .max,
                    maximumRowCount: .max
                )
                _ = try await unbounded.put("value", in: KeyQuery("k"))
                #expect(try await unbounded.getAll(AllObjectsQuery()) == ["value"])
            }
        }
    }

    /// Expects each call to fail with `tooLarge`, its message naming `text`.
    func expectTooLarge(
        _ calls: [@Sendable () async throws -> Void],
        naming text: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        for call in calls {
            let error = await strataError(call)
            #expect(error?.code == .tooLarge, sourceLocation: sourceLocation)
            #expect(
                error?.message.contains(text) == true,
                "\(String(describing: error))",
                sourceLocation: sourceLocation
            )
        }
    }

    /// The first key: a key listing that reads every key to choose from.
    struct FirstKey: KeyListingQuery {
        func selectKeys(from sortedKeys: [String]) -> [String] { Array(sortedKeys.prefix(1)) }
    }

    /// Every row: a filter that matches all.
    struct AnyValue: PostgresFilterQuery {
        var condition: PostgresQuery { "true" }
    }
#endif
