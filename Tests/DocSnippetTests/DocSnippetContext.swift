import Foundation
import Strata
import StrataMemory
import StrataNetwork
import StrataTesting

/// What a reader's app provides around a documentation snippet: each generated snippet is a method of this type
/// (see `scripts/check-doc-snippets`), so the names below are in scope the way they are in the app the snippet
/// imagines. Only the names, never behaviour: snippets are compiled, not run.
struct DocSnippetContext {
    let client = HTTPClient()
    let url = URL(fileURLWithPath: "/")
    let homeURL = URL(fileURLWithPath: "/home")
    let nativeRenditionURL = URL(fileURLWithPath: "/rendition")
    let cachesURL = FileManager.default.temporaryDirectory
    let png = Data()
    let storedETag: String? = "\"v1\""
    let storedLastModified: String? = nil
    let logger = DocLogger()
    let clock = ManualClock()
    let users = CacheRepository(main: UsersAPI(HTTPClient()), cache: MemoryDataSource<User>(countLimit: 10))
    let source = MemoryDataSource<User>()
    let logging = LoggingPlugin { _ in }
    let retry = RetryPlugin()
    let faults = FaultInjectionPlugin(configuration: .init(), seed: 1)

    func fetch(_ url: URL) async throws -> Data { Data() }
    func keyOf(_ query: any Query) -> String { (query as? any KeyedQuery)?.key ?? "" }
    func render(_ user: User, stale: Bool, from origin: DataOrigin) {}
    func render(_ data: Data) {}
    func show(_ user: User, from origin: DataOrigin, dimmed: Bool) {}
    func showSpinner(_ origin: DataOrigin) {}
    func showBanner(_ error: any Error) {}
}

/// A logger with the methods of swift-log's that the snippets call.
struct DocLogger {
    func debug(_ message: String) {}
    func error(_ message: String) {}
}

/// The user a snippet's app reads.
struct User: Codable, Sendable, Equatable {
    var id: Int
    var name: String
}

/// A note, as a snippet's app stores it.
struct Note: Codable, Sendable {
    var text: String
}

/// The app's API as a data source of users.
struct UsersAPI: DataSource {
    init(_ client: HTTPClient) {}

    func get(_ query: any Query) async throws -> User { throw StrataError.notFound() }
    func getAll(_ query: any Query) async throws -> [User] { [] }
    func put(_ value: User, in query: any Query) async throws -> User { value }
    func putAll(_ values: [User], in query: any Query) async throws -> [User] { values }
    func delete(_ query: any Query) async throws {}
}

/// The app's own API client.
struct APIClient: Sendable {
    func user(id: Int) async throws -> User? { nil }
}

/// A store of strings a snippet tests.
struct MyStore: DataSource {
    init() {}
    init(folder: URL) throws {}

    func get(_ query: any Query) async throws -> String { throw StrataError.notFound() }
    func getAll(_ query: any Query) async throws -> [String] { [] }
    func put(_ value: String, in query: any Query) async throws -> String { value }
    func putAll(_ values: [String], in query: any Query) async throws -> [String] { values }
    func delete(_ query: any Query) async throws {}
}

/// A folder for a snippet's test.
func temporaryFolder() -> URL { FileManager.default.temporaryDirectory }

/// swift-metrics' `Counter`, as far as the README's export recipe uses it.
struct Counter {
    init(label: String, dimensions: [(String, String)] = []) {}
    func increment<Amount: BinaryInteger>(by amount: Amount) {}
}

/// swift-metrics' `Gauge`, as far as the README's export recipe uses it.
struct Gauge {
    init(label: String, dimensions: [(String, String)] = []) {}
    func record(_ value: Double) {}
}
