import Strata

/// A data source that prints every call it receives and its outcome, so a sample shows which source answered.
public struct NarratedDataSource<Source: DataSource>: DataSource {
    /// The name printed before each call, such as `main` or `cache`.
    public let name: String

    /// The source calls are forwarded to.
    public let source: Source

    /// Wraps a source.
    ///
    /// - Parameters:
    ///   - name: The name printed before each call.
    ///   - source: The source calls are forwarded to.
    public init(_ name: String, _ source: Source) {
        self.name = name
        self.source = source
    }

    /// Forwards and prints the outcome.
    public func get(_ query: any Query) async throws -> Source.Value {
        try await narrate("get(\(describe(query)))") { try await source.get(query) }
    }

    /// Forwards and prints the outcome.
    public func getAll(_ query: any Query) async throws -> [Source.Value] {
        try await narrate("getAll(\(describe(query)))") { try await source.getAll(query) }
    }

    /// Forwards and prints the outcome.
    public func put(_ value: Source.Value, in query: any Query) async throws -> Source.Value {
        try await narrate("put(\(value), in: \(describe(query)))") { try await source.put(value, in: query) }
    }

    /// Forwards and prints the outcome.
    public func putAll(_ values: [Source.Value], in query: any Query) async throws -> [Source.Value] {
        try await narrate("putAll(\(values), in: \(describe(query)))") { try await source.putAll(values, in: query) }
    }

    /// Forwards and prints the outcome.
    public func delete(_ query: any Query) async throws {
        try await narrate("delete(\(describe(query)))") { try await source.delete(query) }
    }

    private func narrate<Result>(
        _ call: String,
        describing describe: (Result) -> String = { $0 is Void ? "ok" : "\($0)" },
        _ body: () async throws -> Result
    ) async throws -> Result {
        do {
            let result = try await body()
            print("    \(name).\(call) -> \(describe(result))")
            return result
        } catch let error as StrataError {
            print("    \(name).\(call) -> \(error.code)")
            throw error
        }
    }

    private func describe(_ query: any Query) -> String {
        (query as? any KeyedQuery).map { "\"\($0.key)\"" } ?? "\(type(of: query))"
    }
}

extension NarratedDataSource {
    /// The wrapped source's origin.
    public var origin: DataOrigin { source.origin }

    /// The wrapped source's changes.
    public func changes(forKey key: String?) -> AsyncStream<DataChange> { source.changes(forKey: key) }

    /// Forwards and prints the outcome.
    public func getEntry(_ query: any Query) async throws -> StoredEntry<Source.Value> {
        try await narrate("get(\(describe(query)))", describing: Self.describe(entry:)) {
            try await source.getEntry(query)
        }
    }

    /// Forwards a conditional read and prints the outcome.
    public func getIfModified(
        _ query: any Query,
        since metadata: EntryMetadata
    ) async throws -> ConditionalRead<Source.Value> {
        try await narrate("getIfModified(\(describe(query)))") {
            try await source.getIfModified(query, since: metadata)
        }
    }

    /// Forwards a write with metadata and prints the outcome.
    public func putEntry(_ entry: StoredEntry<Source.Value>, in query: any Query) async throws -> Source.Value {
        try await narrate("put(\(entry.value), in: \(describe(query)))") { try await source.putEntry(entry, in: query) }
    }

    /// Forwards writes with metadata and prints the outcome.
    public func putAllEntries(
        _ entries: [StoredEntry<Source.Value>],
        in query: any Query
    ) async throws -> [Source.Value] {
        try await narrate("putAll(\(entries.map(\.value)), in: \(describe(query)))") {
            try await source.putAllEntries(entries, in: query)
        }
    }

    /// Forwards a metadata renewal and prints the outcome.
    public func renewMetadata(_ metadata: EntryMetadata, in query: any Query) async throws -> Bool {
        try await narrate("renewMetadata(\(describe(query)))") { try await source.renewMetadata(metadata, in: query) }
    }

    private static func describe(entry: StoredEntry<Source.Value>) -> String {
        "\(entry.value) (stored \(entry.storedAt.map { "\($0)" } ?? "at an unknown time"))"
    }

    /// Forwards and prints the outcome.
    public func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Source.Value>] {
        try await narrate("getAll(\(describe(query)))", describing: { "\($0.map(\.value))" }) {
            try await source.getAllEntries(query)
        }
    }
}

/// Prints a titled step and runs it, printing a thrown error instead of stopping the sample.
///
/// - Parameters:
///   - title: What the step shows.
///   - body: The step.
public func step(_ title: String, _ body: @Sendable () async throws -> Void) async {
    print("\n▸ \(title)")
    do {
        try await body()
    } catch let error as StrataError {
        print("    ✗ \(error.code): \(error.message)")
    } catch {
        print("    ✗ \(error)")
    }
}

/// The people the samples store, by id.
public let samplePeople: [String: String] = ["1": "Ada", "2": "Grace", "3": "Edsger"]
