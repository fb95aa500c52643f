import Foundation
import LoopbackServer
import SampleSupport
import Strata
import StrataFile
import StrataJSONFile
import StrataNetwork

/// A user as the local API serves it.
struct User: Codable, Sendable, Equatable, CustomStringConvertible {
    let id: Int
    let name: String

    var description: String { "\(name) (#\(id))" }
}

extension StrataTour {
    /// Part 2: a network source behind plugins, cached in a file store; a JSON-file store of Codable values.
    static func persistence(in folder: URL) async {
        print("\n━━ 2. An HTTP API on 127.0.0.1, cached on disk, with logging, retry and metrics plugins")
        let server: LoopbackServer
        do {
            server = try await startUsersAPI()
        } catch {
            print("    ✗ the local server did not start: \(error)")
            return
        }
        let metrics = MetricsPlugin()
        let client = HTTPClient()
        let api = NetworkGetDataSource<User>(client: client) { query in
            guard let query = query as? any KeyedQuery else {
                throw StrataError.queryNotSupported(query, by: NetworkGetDataSource<User>.self)
            }
            return HTTPRequest(.get, baseURL: server.baseURL, path: "users/\(query.key)")
        }
        .plugins(
            [
                LoggingPlugin(minimumLevel: .debug) { print("    [log] \($0.message)") },
                metrics,
                RetryPlugin(),
            ],
            name: "api"
        )
        do {
            let disk = try FileDataSource(
                configuration: .init(location: .url(folder), identifier: "users", maxSize: 10 << 20)
            )
            let cache = disk.decoding(User.self).plugins([metrics], name: "disk")
                .validated(by: .maxAge(.seconds(300)))
            let users = CacheRepository(main: api, cache: cache)
            await step("GET user 1 (.cacheSync): the disk misses, the API answers, the disk keeps it") {
                print("    = \(try await users.get(IdQuery(1), operation: .cacheSync))")
            }
            await step("GET user 1 again: the disk answers; no request") {
                print("    = \(try await users.get(IdQuery(1), operation: .cacheSync))")
            }
            await step("GET user 9: the API says 404, which is a notFound error") {
                print("    = \(try await users.get(IdQuery(9), operation: .cacheSync))")
            }
            print("    The server saw \(server.requestCount()) requests; the disk holds \(disk.count) entries.")
        } catch {
            print("    ✗ \(error)")
        }
        await server.stop()
        printMetrics(metrics.snapshot())

        print("\n━━ 3. A JSON-file store: Codable values, every query, survives a restart")
        await step("Store three users, read a page, reopen the folder and read them back") {
            let configuration = JSONFileDataSource<User>.Configuration(folder: folder.appendingPathComponent("json"))
            do {
                // One live store per folder: this one goes before the folder is reopened.
                let store = try JSONFileDataSource(configuration: configuration)
                let people = [User(id: 1, name: "Ada"), User(id: 2, name: "Grace"), User(id: 3, name: "Edsger")]
                _ = try await store.putAll(people, in: IdsQuery([1, 2, 3]))
                let page = try await store.getAll(PaginationOffsetLimitQuery(offset: 2, limit: 2))
                print("    page 2 of 2-per-page: \(page)")
            }
            let reopened = try JSONFileDataSource(configuration: configuration)
            print("    after reopening: \(try await reopened.getAll(AllObjectsQuery()))")
        }
    }

    private static func startUsersAPI() async throws -> LoopbackServer {
        let names = ["1": "Ada Lovelace", "2": "Grace Hopper"]
        return try await LoopbackServer.start([
            (
                "GET /users/*",
                { request in
                    let id = String(request.path.split(separator: "/").last ?? "")
                    guard let name = names[id], let number = Int(id) else { return ServerReply(status: 404) }
                    let body = try JSONEncoder().encode(User(id: number, name: name))
                    return ServerReply(status: 200, headers: ["Content-Type": "application/json"], body: body)
                }
            )
        ])
    }

    private static func printMetrics(_ snapshot: MetricsSnapshot) {
        print("\n    Metrics (MetricsPlugin):")
        for (key, metrics) in snapshot.entries.sorted(by: { $0.key.description < $1.key.description }) {
            let p50 = metrics.latency.p50.map { "\($0.timeInterval * 1_000) ms" } ?? "-"
            print("      \(key): \(metrics.calls) calls, \(metrics.hits) hits, \(metrics.misses) misses, p50 \(p50)")
        }
    }
}
