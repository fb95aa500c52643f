import Foundation
import Strata
import StrataJSONFile
import StrataTestSupport
import StrataTesting
import Testing

/// The value the tests store.
struct Item: Codable, Sendable, Equatable {
    var name: String
    var number: Int
}

/// A unique temporary folder, named after the running test and removed when the test body returns.
func withTemporaryFolder<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
    let folder = try TemporaryFolder(prefix: "StrataJSONFileTests")
    defer { folder.remove() }
    return try await body(folder.url)
}

/// Counts calls, across threads.
final class Counter: Sendable {
    private let value = Locked(0)

    func increment() { value.withLock { $0 += 1 } }

    var count: Int { value.withLock { $0 } }
}

/// Collects the reports a store sends to its diagnostics closure.
final class ReportCollector: Sendable {
    private let reports = Locked<[StrataError]>([])

    var diagnostics: @Sendable (StrataError) -> Void {
        { report in self.reports.withLock { $0.append(report) } }
    }

    var all: [StrataError] { reports.withLock { $0 } }
}

/// A configuration for tests: the folder, a manual clock and counters on the coders.
struct Fixture {
    let folder: URL
    let clock = ManualClock()
    let decodes = Counter()
    let reports = ReportCollector()

    func configuration(countLimit: Int? = nil, timeToLive: Duration? = nil) -> JSONFileDataSource<Item>.Configuration {
        let decodes = decodes
        return .init(
            folder: folder,
            countLimit: countLimit,
            timeToLive: timeToLive,
            makeDecoder: {
                decodes.increment()
                return JSONDecoder()
            },
            key: { $0.name },
            clock: clock,
            diagnostics: reports.diagnostics
        )
    }

    func open(countLimit: Int? = nil, timeToLive: Duration? = nil) throws -> JSONFileDataSource<Item> {
        try JSONFileDataSource(configuration: configuration(countLimit: countLimit, timeToLive: timeToLive))
    }

    /// Every file under the store's folder, as paths relative to it.
    func files() throws -> [String] {
        let root = folder.standardizedFileURL.path
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var paths: [String] = []
        while let path = enumerator.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder), !isFolder.boolValue {
                paths.append(path)
            }
        }
        return paths.sorted()
    }
}

/// A query no data source knows.
struct UnknownQuery: Query {}

/// Expects `body` to throw a ``StrataError`` with `code`.
func expectError<Result>(
    _ code: StrataError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Result
) async {
    do {
        _ = try await body()
        Issue.record("Expected a \(code) error, got a value", sourceLocation: sourceLocation)
    } catch {
        #expect(error.strataCode == code, "\(error)", sourceLocation: sourceLocation)
    }
}
