#if Postgres
    import Foundation
    import PostgresNIO
    import PrivatePostgres
    import Strata
    import Testing

    @testable import StrataPostgres

    /// A value with a nested shape, for the tests' tables.
    struct Note: Codable, Sendable, Hashable {
        var title: String
        var revision: Int
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
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1",
            port: server.port,
            username: server.user,
            password: nil,
            database: "postgres",
            tls: .disable
        )
        configuration.options.connectTimeout = .seconds(2)
        if let statementTimeout {
            configuration.options.additionalStartupParameters = [("statement_timeout", statementTimeout)]
        }
        let client = PostgresClient(configuration: configuration)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await body(client)
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
        do {
            try await body()
            return nil
        } catch {
            return error.strataCode
        }
    }
#endif
