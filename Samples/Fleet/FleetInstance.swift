#if Postgres
    import Foundation
    import LoopbackServer
    import PostgresNIO
    import Strata
    import StrataMemory
    import StrataPostgres

    /// The value every instance serves: the writer's sequence number.
    struct Reading: Codable, Sendable, Hashable {
        var sequence: Int
    }

    /// The client configuration of every process of the fleet.
    func fleetClient(port: Int) -> PostgresClient {
        PostgresClient(
            configuration: .init(
                host: "127.0.0.1",
                port: port,
                username: "strata",
                password: nil,
                database: "postgres",
                tls: .disable
            )
        )
    }

    /// Wall-clock seconds: comparable between the processes of one machine.
    func wallClock() -> Double { Date().timeIntervalSince1970 }

    /// One instance of the service: `GET /values/<key>` reads through `CacheRepository(main: postgres, cache: memory)`,
    /// and `GET /drops` lists when each key was dropped from its cache (the key and the wall-clock time).
    enum FleetInstance {
        static func run(postgresPort: Int) async throws {
            let client = fleetClient(port: postgresPort)
            let source = try PostgresDataSource<Reading>(client: client, table: "fleet")
            let repository = CacheRepository(main: source, cache: source.coherentCache(MemoryDataSource<Reading>()))
            let drops = Locked<[FleetDrop]>([])
            let changes = source.changes(forKey: nil)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                group.addTask { await source.run() }
                // The feed announces a key after dropping it from the cache: the moment it is gone.
                for await change in changes where change == .invalidateAll { break }
                group.addTask {
                    for await change in changes {
                        guard let key = change.key else { continue }
                        let time = wallClock()
                        drops.withLock { $0.append(FleetDrop(key: key, time: time)) }
                    }
                }
                let server = try await LoopbackServer.start([
                    ("GET /values/*", { request in try await value(request, repository) }),
                    (
                        "GET /drops",
                        { _ in ServerReply(status: 200, body: try JSONEncoder().encode(drops.withLock { $0 })) }
                    ),
                ])
                FileHandle.standardOutput.write(Data("listening \(server.baseURL.absoluteString)\n".utf8))
                // Serves until the coordinator terminates the process.
                try await Task.sleep(for: .seconds(86_400))
            }
        }

        private static func value(
            _ request: ServerRequest,
            _ repository: CacheRepository<PostgresDataSource<Reading>, PostgresCoherentCache<MemoryDataSource<Reading>>>
        ) async throws -> ServerReply {
            let key = String(request.path.split(separator: "/").last ?? "")
            do {
                let reading = try await repository.get(KeyQuery(key), operation: .cacheSync)
                return ServerReply(status: 200, body: try JSONEncoder().encode(reading))
            } catch let error as StrataError where error.code == .notFound {
                return ServerReply(status: 404)
            }
        }
    }

    /// When an instance dropped a key from its cache.
    struct FleetDrop: Codable, Sendable {
        var key: String
        var time: Double
    }
#endif
