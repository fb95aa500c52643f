import BenchmarkPostgres
import BenchmarkSupport
import Foundation
import PostgresNIO
import Strata
import StrataMemory
import StrataPostgres

/// The value the PostgreSQL rows read: a small `Codable` record (about 200 bytes of JSON).
struct Profile: Codable, Sendable, Equatable {
    var id: String
    var name: String
    var bio: String
    var score: Int

    /// The record stored under `key-<index>`.
    init(_ index: Int) {
        id = "key-\(index)"
        name = "User \(index)"
        bio = String(repeating: "Strata benchmark profile \(index % 10). ", count: 4)
        score = index
    }
}

/// The data of the PostgreSQL rows: 1,024 records in one table, read in a shuffled order.
enum PostgresFixture {
    static let count = 1_024
    static let keys = Fixture.keys(count)
    static let order = Fixture.accessOrder(count)

    /// Reads per iteration of the one-client rows.
    static let reads = 64

    /// Tasks reading at once in the concurrent rows, and the reads each makes per iteration.
    static let clients = 16
    static let readsPerClient = 16
}

/// One benchmark process's PostgreSQL: a private server (`initdb` in a temporary folder, a loopback port), a running
/// `PostgresClient` on it, and a table holding every record of ``PostgresFixture``. Started in a benchmark's setup,
/// stopped (and its folder removed) in its teardown: each benchmark runs in a process of its own.
final class PostgresSession: Sendable {
    let server: PrivatePostgres
    let source: PostgresDataSource<Profile>
    private let running: Task<Void, Never>

    private init(server: PrivatePostgres, source: PostgresDataSource<Profile>, running: Task<Void, Never>) {
        self.server = server
        self.source = source
        self.running = running
    }

    /// Starts a server and a client, and writes every record (one statement).
    static func start() async throws -> PostgresSession {
        let server = try await PrivatePostgres.start()
        let configuration = PostgresClient.Configuration(
            host: "127.0.0.1",
            port: server.port,
            username: server.user,
            password: nil,
            database: "postgres",
            tls: .disable
        )
        let client = PostgresClient(configuration: configuration)
        let running = Task { await client.run() }
        let session: PostgresSession
        do {
            let source = try PostgresDataSource<Profile>(client: client, table: "profiles") { $0.id }
            session = PostgresSession(server: server, source: source, running: running)
            _ = try await source.putAll((0..<PostgresFixture.count).map(Profile.init), in: AllObjectsQuery())
        } catch {
            running.cancel()
            await running.value
            await server.stop()
            throw error
        }
        return session
    }

    /// A memory cache holding every record, as a warm instance's cache would.
    func warmCache() -> MemoryDataSource<Profile> {
        let memory = MemoryDataSource<Profile>()
        for index in 0..<PostgresFixture.count { memory.setValue(Profile(index), forKey: PostgresFixture.keys[index]) }
        return memory
    }

    /// Stops the client, then the server, and removes the server's folder.
    func stop() async {
        running.cancel()
        await running.value
        await server.stop()
    }
}

/// Something that reads a record by key.
protocol ProfileReader: Sendable {
    func read(_ key: String) async throws -> Profile
}

/// `CacheRepository(main: postgres, cache: memory)` read with `.cacheSync`: with the cache warm, a memory hit.
struct RepositoryReader: ProfileReader {
    let repository: CacheRepository<PostgresDataSource<Profile>, MemoryDataSource<Profile>>
    func read(_ key: String) async throws -> Profile { try await repository.get(KeyQuery(key), operation: .cacheSync) }
}

/// The PostgreSQL source itself: one `SELECT` per read.
struct SourceReader: ProfileReader {
    let source: PostgresDataSource<Profile>
    func read(_ key: String) async throws -> Profile { try await source.get(KeyQuery(key)) }
}

/// Reads `keys[order[p]]` for every `p` in `positions`; returns the number of records read back intact.
@inline(never)
func readAll(_ reader: some ProfileReader, positions: Range<Int>) async -> Int {
    var intact = 0
    for position in positions {
        let index = PostgresFixture.order[position]
        if (try? await reader.read(PostgresFixture.keys[index])) == Profile(index) { intact += 1 }
    }
    return intact
}
