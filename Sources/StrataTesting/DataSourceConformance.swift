import Strata

/// A suite of checks that any key-value ``Strata/DataSource`` must pass, runnable under Swift Testing or XCTest.
///
/// ``run()`` throws a ``ConformanceFailure`` naming the first violated rule, so one line in any test
/// framework checks a source of your own:
///
/// ```swift
/// @Test func myStoreConforms() async throws {
///     try await DataSourceConformance(makeSource: { MyStore() }, makeValue: { "value \($0)" }).run()
/// }
/// ```
///
/// The rules: a missing key is ``Strata/StrataError/Code/notFound``; a put is read back; a put overwrites; a
/// delete removes and deleting a missing key succeeds; a query the source does not know is
/// ``Strata/StrataError/Code/queryNotSupported`` (never a crash); ``Strata/IdsQuery`` answers in its own order;
/// ``Strata/AllObjectsQuery`` lists every value and deletes every value; concurrent puts and gets of distinct keys
/// all land.
public struct DataSourceConformance<Source: DataSource>: Sendable where Source.Value: Equatable {
    /// Which optional capabilities the source under test has.
    public struct Capabilities: Sendable {
        /// The source answers ``Strata/IdsQuery`` for `getAll`, `putAll` and `delete`.
        public var multiKeyQueries: Bool
        /// The source answers ``Strata/AllObjectsQuery`` for `getAll` and `delete`.
        public var allObjectsQuery: Bool
        /// How many concurrent tasks the concurrency check runs.
        public var concurrentTasks: Int

        /// Creates a set of capabilities; by default everything is checked.
        ///
        /// - Parameters:
        ///   - multiKeyQueries: Whether ``Strata/IdsQuery`` is answered.
        ///   - allObjectsQuery: Whether ``Strata/AllObjectsQuery`` is answered.
        ///   - concurrentTasks: How many tasks the concurrency check runs.
        public init(multiKeyQueries: Bool = true, allObjectsQuery: Bool = true, concurrentTasks: Int = 64) {
            self.multiKeyQueries = multiKeyQueries
            self.allObjectsQuery = allObjectsQuery
            self.concurrentTasks = concurrentTasks
        }
    }

    private let makeSource: @Sendable () async throws -> Source
    private let makeValue: @Sendable (Int) -> Source.Value
    private let capabilities: Capabilities

    /// Creates the suite.
    ///
    /// - Parameters:
    ///   - capabilities: Which optional capabilities to check.
    ///   - makeSource: Makes a new, empty source; called once per rule.
    ///   - makeValue: Makes distinct values: different integers must give different values.
    public init(
        capabilities: Capabilities = Capabilities(),
        makeSource: @escaping @Sendable () async throws -> Source,
        makeValue: @escaping @Sendable (Int) -> Source.Value
    ) {
        self.capabilities = capabilities
        self.makeSource = makeSource
        self.makeValue = makeValue
    }

    /// Runs every rule, stopping at the first violation.
    ///
    /// - Throws: ``ConformanceFailure`` for a violated rule, or the source's error when it fails where it
    ///   must succeed (wrapped in a ``ConformanceFailure`` that names the rule).
    public func run() async throws {
        try await check("a missing key is notFound") { source in
            try await expectCode(.notFound) { _ = try await source.get(KeyQuery("missing")) }
        }
        try await check("a put is read back") { source in
            let stored = try await source.put(makeValue(1), in: KeyQuery("a"))
            try expectEqual(stored, makeValue(1), "put returned another value")
            try expectEqual(try await source.get(KeyQuery("a")), makeValue(1), "get after put")
        }
        try await check("a put overwrites") { source in
            _ = try await source.put(makeValue(1), in: KeyQuery("a"))
            _ = try await source.put(makeValue(2), in: KeyQuery("a"))
            try expectEqual(try await source.get(KeyQuery("a")), makeValue(2), "get after the second put")
        }
        try await check("a delete removes, and deleting a missing key succeeds") { source in
            _ = try await source.put(makeValue(1), in: KeyQuery("a"))
            _ = try await source.put(makeValue(2), in: KeyQuery("b"))
            try await source.delete(KeyQuery("a"))
            try await expectCode(.notFound) { _ = try await source.get(KeyQuery("a")) }
            try expectEqual(try await source.get(KeyQuery("b")), makeValue(2), "a neighbour survives a delete")
            try await source.delete(KeyQuery("never-stored"))
        }
        try await check("an unknown query is queryNotSupported") { source in
            try await expectCode(.queryNotSupported) { _ = try await source.get(UnknownQuery()) }
            try await expectCode(.queryNotSupported) { _ = try await source.put(makeValue(1), in: UnknownQuery()) }
            try await expectCode(.queryNotSupported) { try await source.delete(UnknownQuery()) }
        }
        if capabilities.multiKeyQueries { try await checkMultiKeyQueries() }
        if capabilities.allObjectsQuery { try await checkAllObjectsQuery() }
        try await checkConcurrency()
    }

    private func checkMultiKeyQueries() async throws {
        try await check("IdsQuery answers in its own order") { source in
            let values = [makeValue(3), makeValue(1), makeValue(2)]
            _ = try await source.putAll(values, in: IdsQuery(["c", "a", "b"]))
            try expectEqual(try await source.getAll(IdsQuery(["b", "c"])), [makeValue(2), makeValue(3)], "getAll")
            try await source.delete(IdsQuery(["a", "b"]))
            try await expectCode(.notFound) { _ = try await source.get(KeyQuery("a")) }
            try expectEqual(try await source.get(KeyQuery("c")), makeValue(3), "a key outside the IdsQuery")
        }
    }

    private func checkAllObjectsQuery() async throws {
        try await check("AllObjectsQuery lists and deletes every value") { source in
            for index in 0..<5 { _ = try await source.put(makeValue(index), in: KeyQuery("k\(index)")) }
            let all = try await source.getAll(AllObjectsQuery())
            try expectEqual(all.count, 5, "count of getAll(AllObjectsQuery)")
            for index in 0..<5 where !all.contains(makeValue(index)) {
                throw ConformanceFailure(rule: "AllObjectsQuery", message: "value \(index) is missing")
            }
            try await source.delete(AllObjectsQuery())
            try expectEqual(try await source.getAll(AllObjectsQuery()).count, 0, "count after delete(AllObjectsQuery)")
        }
    }

    private func checkConcurrency() async throws {
        let tasks = capabilities.concurrentTasks
        try await check("concurrent puts and gets of distinct keys all land") { source in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<tasks {
                    group.addTask {
                        _ = try await source.put(makeValue(index), in: KeyQuery("c\(index)"))
                        _ = try await source.get(KeyQuery("c\(index)"))
                    }
                }
                try await group.waitForAll()
            }
            for index in 0..<tasks {
                try expectEqual(try await source.get(KeyQuery("c\(index)")), makeValue(index), "key c\(index)")
            }
        }
    }

    private func check(_ rule: String, _ body: (Source) async throws -> Void) async throws {
        let source = try await makeSource()
        do {
            try await body(source)
        } catch let failure as ConformanceFailure {
            throw ConformanceFailure(rule: rule, message: failure.message)
        } catch {
            throw ConformanceFailure(rule: rule, message: "unexpected error: \(error)")
        }
    }
}

/// The first rule a data source broke in a ``DataSourceConformance`` run.
public struct ConformanceFailure: Error, CustomStringConvertible {
    /// The rule, such as "a put is read back".
    public let rule: String

    /// What was seen instead.
    public let message: String

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - rule: The rule.
    ///   - message: What was seen.
    public init(rule: String, message: String) {
        self.rule = rule
        self.message = message
    }

    /// `Rule "…" failed: …`.
    public var description: String { "Rule \"\(rule)\" failed: \(message)" }
}

/// A query no data source knows.
private struct UnknownQuery: Query {}

private func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: String) throws {
    guard actual == expected else {
        throw ConformanceFailure(rule: what, message: "\(what): expected \(expected), got \(actual)")
    }
}

private func expectCode(_ code: StrataError.Code, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as StrataError {
        guard error.code == code else {
            throw ConformanceFailure(rule: "\(code)", message: "expected \(code), got \(error.code): \(error.message)")
        }
        return
    } catch {
        throw ConformanceFailure(rule: "\(code)", message: "expected StrataError.\(code), got \(error)")
    }
    throw ConformanceFailure(rule: "\(code)", message: "expected StrataError.\(code), the call succeeded")
}
