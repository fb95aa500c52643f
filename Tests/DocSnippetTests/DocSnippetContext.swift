import Foundation
import Strata
import StrataCache
import StrataFile
import StrataJSONFile
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
    let api = UsersAPI(HTTPClient())
    let memory = MemoryDataSource<User>()
    // swift-format-ignore: NeverUseForceTry
    let files = try! JSONFileDataSource<User>(configuration: .init(folder: URL(fileURLWithPath: "/users")))
    let http = NetworkGetDataSource<User>(client: HTTPClient()) { _ in HTTPRequest(url: URL(fileURLWithPath: "/")) }
    let base = URL(fileURLWithPath: "/api")
    let request = HTTPRequest(.get, url: URL(fileURLWithPath: "/api/users/42"))
    let stored = EntryMetadata(eTag: "\"v1\"")
    let error = StrataError(.unexpectedResponse, "HTTP 503")
    // swift-format-ignore: NeverUseForceTry
    let images = try! FileDataSource(configuration: .init(identifier: "images"))
    let support = URL(fileURLWithPath: "/support")
    let imagesFolder = URL(fileURLWithPath: "/images")
    let usersFolder = URL(fileURLWithPath: "/users")
    let assetURL = URL(fileURLWithPath: "/assets/123")
    // swift-format-ignore: NeverUseForceTry
    let cacheManager = try! CacheManager(configuration: .init(folder: URL(fileURLWithPath: "/beagle")))
    // swift-format-ignore: NeverUseForceTry
    let provider = try! FileCacheProvider(store: FileDataSource(configuration: .init(identifier: "assets")))
    let service = DownloadService(url: URL(fileURLWithPath: "/assets/123"), cacheProvider: FakeCacheProvider())
    let reachability = Reachability()
    let bar = ProgressBar()

    func fetch(_ url: URL) async throws -> Data { Data() }
    func key(_ query: any Query) throws -> String {
        guard let key = (query as? any KeyedQuery)?.key else { throw StrataError.notFound() }
        return key
    }
    func keyOf(_ query: any Query) -> String { (query as? any KeyedQuery)?.key ?? "" }
    func render(_ user: User, stale: Bool, from origin: DataOrigin) {}
    func render(_ data: Data) {}
    func show(_ user: User, from origin: DataOrigin, dimmed: Bool) {}
    func showSpinner(_ origin: DataOrigin) {}
    func showBanner(_ error: any Error) {}
    func showSpinner() {}
    func show(_ user: User, dimmed: Bool = false, saving: Bool = false) {}
    func showEmptyState() {}
    func showSavingBadge() {}
    func showValidationErrors() {}
    func serveWithoutAsking() {}
    func store(_ response: HTTPResponse) {}
    func store(_ body: Data, expiresAt: Date?) {}
    func renew(_ entry: EntryMetadata, with headers: HTTPHeaders) {}
    func renew(_ key: String, with headers: HTTPHeaders) {}
    func use(_ file: URL) {}
}

/// A connectivity monitor of the snippet's app.
struct Reachability {
    func markReachable() {}
}

/// A progress bar of the snippet's app.
final class ProgressBar: @unchecked Sendable {
    var value = 0.0
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
    var id: String
    var text: String
    var version: Int
}

/// A quote, which carries the time it was fetched.
struct Quote: Codable, Sendable {
    var price: Double
    var fetchedAt: Date
}

/// The app's database of notes.
struct NotesDatabase: Sendable {
    func update(_ note: Note, onlyIfRevision revision: String?) async throws -> Note { note }
    func update(_ notes: [Note], onlyIfRevision revision: String?) async throws -> [Note] { notes }
    func upsert(_ note: Note, requestID: String?) async throws -> Note { note }
    func upsert(_ notes: [Note], requestID: String?) async throws -> [Note] { notes }
}

/// The app's API as a data source of notes.
struct NotesAPI: DataSource {
    init(_ client: HTTPClient) {}

    func get(_ query: any Query) async throws -> Note { throw StrataError.notFound() }
    func getAll(_ query: any Query) async throws -> [Note] { [] }
    func put(_ value: Note, in query: any Query) async throws -> Note { value }
    func putAll(_ values: [Note], in query: any Query) async throws -> [Note] { values }
    func delete(_ query: any Query) async throws {}
}

/// A wrapper of a data source, as a snippet's app writes one.
struct MyWrapper<Source: DataSource>: DataSource {
    let source: Source
    init(_ source: Source) { self.source = source }

    func get(_ query: any Query) async throws -> Source.Value { try await source.get(query) }
    func getAll(_ query: any Query) async throws -> [Source.Value] { try await source.getAll(query) }
    func put(_ value: Source.Value, in query: any Query) async throws -> Source.Value {
        try await source.put(value, in: query)
    }
    func putAll(_ values: [Source.Value], in query: any Query) async throws -> [Source.Value] {
        try await source.putAll(values, in: query)
    }
    func delete(_ query: any Query) async throws { try await source.delete(query) }
}

/// A cache provider that finds nothing.
struct FakeCacheProvider: CacheProvider {
    var cachePolicy: CachePolicy { .alwaysFetchWithCustomHeader }
    func find(key: String) -> URL? { nil }
    func cachedItem(key: String) throws -> URL { throw StrataError.notFound() }
    func store(objectAt file: URL, key: String, headers: [String: String]) throws -> URL { file }
    func headerValues(for cacheKey: String) -> [String: String] { [:] }
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
