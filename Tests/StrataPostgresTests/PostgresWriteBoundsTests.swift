#if Postgres
    import Foundation
    import PostgresNIO
    import Strata
    import StrataTestSupport
    import Testing

    @testable import StrataPostgres

    /// What a source writes it can read back: its values as PostgreSQL prints them.
    extension PostgresReadBoundsTests {
        /// A value was measured as encoded, but read as PostgreSQL prints `jsonb`, a space after each `,`: a value
        /// written just under the limit could not be read.
        @Test("a value whose jsonb prints over the limit is tooLarge on write and nothing is stored; one at it reads")
        func aWriteIsMeasuredAsPostgresPrintsIt() async throws {
            try await withPostgres { _, client in
                let numbers: PostgresDataSource<[Int]> = try bounded(client, table: tableName(), maximumValueSize: 100)
                // 40 digits: 81 bytes as encoded, `[1, 1, …]` 120 as PostgreSQL prints it.
                let over = [Int](repeating: 1, count: 40)
                // `[10, 1, 1, …]` with 32 ones: 68 bytes as encoded, exactly 100 as printed.
                let atTheLimit = [10] + [Int](repeating: 1, count: 32)
                let writes: [@Sendable () async throws -> Void] = [
                    { _ = try await numbers.put(over, in: KeyQuery("k")) },
                    { _ = try await numbers.putAll([[1], over], in: IdsQuery(["a", "k"])) },
                    { _ = try await numbers.put(over, forKey: "k", ifVersion: nil) },
                ]
                await expectTooLarge(writes, naming: "120 bytes")
                #expect(try await numbers.getAll(AllObjectsQuery()).isEmpty)

                let version = try await numbers.put(atTheLimit, forKey: "k", ifVersion: nil)
                #expect(try await numbers.get(KeyQuery("k")) == atTheLimit)
                let replace = await strataError { _ = try await numbers.put(over, forKey: "k", ifVersion: version) }
                #expect(replace?.code == .tooLarge)
                _ = try await numbers.putAll([atTheLimit, [2]], in: IdsQuery(["k", "b"]))
                #expect(try await numbers.versionedValue(forKey: "k").value == atTheLimit)
                #expect(try await numbers.getAll(AllObjectsQuery()) == [[2], atTheLimit])
            }
        }

        /// Keys were unbounded: a key past about 2,700 bytes failed PostgreSQL's index with `unexpectedResponse`, and a
        /// key listing read any key another program wrote, however long.
        @Test("a key over maximumKeySize is tooLarge on every call before it is sent; a listing refuses a longer key")
        func keysAreBounded() async throws {
            try await withPostgres { server, client in
                let texts: PostgresDataSource<String> = try source(client)
                // 3,200 bytes that do not compress: over the index's 2,704, and over the default bound of 2,048.
                let long = (0..<100).map { _ in UUID().uuidString.replacingOccurrences(of: "-", with: "") }.joined()
                let calls: [@Sendable () async throws -> Void] = [
                    { _ = try await texts.put("v", in: KeyQuery(long)) },
                    { _ = try await texts.putAll(["v", "w"], in: IdsQuery(["a", long])) },
                    { _ = try await texts.put("v", forKey: long, ifVersion: nil) },
                    { _ = try await texts.get(KeyQuery(long)) },
                    { _ = try await texts.getAll(IdsQuery(["a", long])) },
                    { _ = try await texts.versionedValue(forKey: long) },
                    { try await texts.delete(KeyQuery(long)) },
                    { try await texts.delete(IdsQuery([long])) },
                ]
                await expectTooLarge(calls, naming: "3200 bytes")
                // A key at the bound is stored.
                let atTheBound = String(long.prefix(2_048))
                _ = try await texts.put("v", in: KeyQuery(atTheBound))
                #expect(try await texts.get(KeyQuery(atTheBound)) == "v")

                // Past a raised bound, the index refuses the key: tooLarge from the server, nothing stored.
                let raised = try PostgresDataSource<String>(client: client, table: texts.table, maximumKeySize: 10_000)
                #expect(await strataCode { _ = try await raised.put("v", in: KeyQuery(long)) } == .tooLarge)

                // A longer key another program wrote (3,000 bytes that compress, so the index takes it): listings
                // refuse it.
                try await server.psql("INSERT INTO \(texts.table) (key, value) VALUES (repeat('x', 3000), '\"w\"')")
                let listings: [@Sendable () async throws -> Void] = [
                    { _ = try await texts.getAll(FirstKey()) },
                    { _ = try await texts.getAll(AllObjectsQuery()) },
                    { _ = try await texts.getAll(PaginationOffsetLimitQuery(offset: 0, limit: 10)) },
                    { _ = try await texts.getAll(AnyValue()) },
                    { try await texts.delete(FirstKey()) },
                ]
                await expectTooLarge(listings, naming: "maximumKeySize")
                #expect(try await texts.getAll(IdsQuery([atTheBound])) == ["v"])
            }
        }

        /// A putAll was bounded only by maximumValueSize for each value, however many values it had.
        @Test("a put or putAll over maximumWriteSize, keys and JSON together, is tooLarge and nothing is stored")
        func aWholeWriteIsBounded() async throws {
            try await withPostgres { _, client in
                let texts = try PostgresDataSource<String>(
                    client: client,
                    table: tableName(),
                    callTimeout: generousCallTimeout,
                    maximumValueSize: 100,
                    maximumWriteSize: 250
                )
                // Each value is 100 bytes of JSON and each key 1 byte: two are 202 bytes, three 303.
                let value = String(repeating: "v", count: 98)
                _ = try await texts.putAll([value, value], in: IdsQuery(["a", "b"]))
                let error = await strataError {
                    _ = try await texts.putAll([value, value, value], in: IdsQuery(["c", "d", "e"]))
                }
                #expect(error?.code == .tooLarge)
                #expect(error?.message.contains("maximumWriteSize of 250") == true, "\(String(describing: error))")
                #expect(try await texts.getAll(AllObjectsQuery()) == [value, value])
                let one = try PostgresDataSource<String>(client: client, table: texts.table, maximumWriteSize: 50)
                #expect(await strataCode { _ = try await one.put(value, in: KeyQuery("f")) } == .tooLarge)
            }
        }
    }
#endif
