#if Postgres
    import Foundation
    import PostgresNIO
    import PrivatePostgres
    import Strata
    import StrataTestSupport
    import Testing

    @testable import StrataPostgres

    /// A value with a nested shape, for the tests' tables.
    struct Note: Codable, Sendable, Hashable {
        var title: String
        var revision: Int
    }

    /// The call timeout of the tests' sources: generous, because CI runs them on a loaded two-core machine, where a
    /// statement can wait seconds for a processor while other tests start their servers.
    let generousCallTimeout = Duration.seconds(60)

    /// A source over `table` (a new one by default) with ``generousCallTimeout``, or the call timeout a test needs.
    func source<Value>(
        _ client: PostgresClient,
        table: String = tableName(),
        keyOfValue: (@Sendable (Value) -> String)? = nil,
        callTimeout: Duration = generousCallTimeout
    ) throws -> PostgresDataSource<Value> {
        try PostgresDataSource<Value>(client: client, table: table, keyOfValue: keyOfValue, callTimeout: callTimeout)
    }

    /// Whether this machine can run the tests that need PostgreSQL; prints why not, once, when it cannot.
    let postgresAvailable: Bool = {
        if let reason = PrivatePostgres.unavailableReason { print("StrataPostgresTests skipped: \(reason)") }
        return PrivatePostgres.unavailableReason == nil
    }()

    /// A private server and one running client on it, for the length of `body`.
    func withPostgres(
        durable: Bool = false,
        statementTimeout: String? = nil,
        _ body: (PrivatePostgres, PostgresClient) async throws -> Void
    ) async throws {
        let server = try await PrivatePostgres.start(durable: durable)
        do {
            try await withClient(on: server, statementTimeout: statementTimeout) { client in
                try await body(server, client)
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A running client on `server` for the length of `body`: one instance of a fleet.
    func withClient(
        on server: PrivatePostgres,
        statementTimeout: String? = nil,
        _ body: (PostgresClient) async throws -> Void
    ) async throws {
        try await withClient(port: server.port, user: server.user, statementTimeout: statementTimeout, body)
    }

    /// A running client on a loopback port (where a server may or may not listen) for the length of `body`; its pool
    /// holds at most `maximumConnections` connections, when given, on `eventLoopGroup` (postgres-nio's shared one by
    /// default).
    func withClient(
        port: Int,
        user: String,
        statementTimeout: String? = nil,
        maximumConnections: Int? = nil,
        eventLoopGroup: any EventLoopGroup = PostgresClient.defaultEventLoopGroup,
        _ body: (PostgresClient) async throws -> Void
    ) async throws {
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1",
            port: port,
            username: user,
            password: nil,
            database: "postgres",
            tls: .disable
        )
        configuration.options.connectTimeout = .seconds(2)
        if let maximumConnections { configuration.options.maximumConnections = maximumConnections }
        if let statementTimeout {
            configuration.options.additionalStartupParameters = [("statement_timeout", statementTimeout)]
        }
        let client = PostgresClient(configuration: configuration, eventLoopGroup: eventLoopGroup)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await body(client)
        }
    }

    /// A client that is never run, for a source a test makes and checks without a server.
    func unrunClient() -> PostgresClient {
        PostgresClient(
            configuration: PostgresClient.Configuration(
                host: "127.0.0.1",
                port: 5432,
                username: "strata",
                password: nil,
                database: "postgres",
                tls: .disable
            )
        )
    }

    /// The first column of the rows `statement` answers on `client`.
    func column<Column: PostgresDecodable & Sendable>(
        _ statement: String,
        as type: Column.Type,
        on client: PostgresClient
    ) async throws -> [Column] {
        let rows = try await client.query(PostgresQuery(unsafeSQL: statement))
        var values: [Column] = []
        for try await value in rows.decode(Column.self) { values.append(value) }
        return values
    }

    /// Runs `body` while another client's transaction holds `LOCK TABLE` on `table`; gives it that connection.
    func withLockedTable(
        _ table: String,
        on server: PrivatePostgres,
        _ body: (PostgresConnection) async throws -> Void
    ) async throws {
        try await withClient(on: server) { locker in
            try await locker.withConnection { connection in
                let logger = Logger(label: "strata.tests")
                try await connection.query("BEGIN", logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(table)"), logger: logger)
                try await body(connection)
                try await connection.query("ROLLBACK", logger: logger)
            }
        }
    }

    /// Runs the source's change feed for the length of `body`, which starts once the feed listens.
    func withFeed<Value>(_ source: PostgresDataSource<Value>, _ body: () async throws -> Void) async throws {
        let changes = source.changes(forKey: nil)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await source.run() }
            defer { group.cancelAll() }
            for await change in changes where change == .invalidateAll { break }
            try await body()
        }
    }

    /// The channel the source's change feed listens on, for notifications sent behind its back.
    func feedChannel<Value>(of source: PostgresDataSource<Value>) -> String { source.sql.channel }

    /// A table name no other test uses.
    func tableName(_ prefix: String = "t") -> String {
        "\(prefix)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12))"
    }

    /// Waits for the first change on `stream` that `isWanted` accepts; `nil` when the stream ends first.
    func first(_ stream: AsyncStream<DataChange>, where isWanted: (DataChange) -> Bool) async -> DataChange? {
        for await change in stream where isWanted(change) { return change }
        return nil
    }

    /// The code of the error `body` throws, or `nil` when it succeeds.
    func strataCode(_ body: () async throws -> Void) async -> StrataError.Code? {
        await strataError(body)?.code
    }

    /// Evaluates `condition` until it holds, every 10 ms, for at most `limit`: whether it held. For what another task
    /// does on its own (a feed applying a change to a cache), which the test cannot await.
    func eventually(within limit: Duration = .seconds(30), _ condition: () async -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Runs `body` until it succeeds, again after each retryable ``StrataError/Code/network`` error (a server coming
    /// back); any other error ends it. The suite's time limit bounds it.
    func untilServed(_ body: () async throws -> Void) async throws {
        while true {
            do {
                return try await body()
            } catch let error as StrataError where error.code == .network && error.isRetryable {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }
#endif
