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
/// The rules every source follows: a missing key is ``Strata/StrataError/Code/notFound``; a put is read back; a
/// put overwrites; ``Strata/IdQuery`` and ``Strata/KeyQuery`` name the same entry; a delete removes and deleting a
/// missing key succeeds; a query the source does not know is ``Strata/StrataError/Code/queryNotSupported`` for
/// `get`, `getAll`, `put`, `putAll` and `delete` (never a crash); ``Strata/IdsQuery`` answers in its own order
/// (`getAll` and `getAllEntries`, whatever the keys' order) and deletes every key it names, and one with a key the
/// source lacks is ``Strata/StrataError/Code/notFound``, never a shorter list;
/// ``Strata/AllObjectsQuery`` lists every value and deletes every value; concurrent puts and gets of distinct keys
/// all land.
///
/// The rules of a key-value store (``Strata/KeyValueStore``), each behind a ``Capabilities`` switch that
/// ``Capabilities/keyValueStore`` turns on: a keyed query answers `getAll` and `putAll` as a list of one;
/// ``Strata/PaginationOffsetLimitQuery`` pages the key order (whatever order the keys were written and read in), and
/// ``Strata/AllObjectsQuery`` lists in it; the list rule (a store never given a list answer
/// answers a listing with *not found*, a stored empty answer is served, deleting every value forgets it); the key
/// rule (a key written in NFC is read in NFD); metadata travels (`putEntry` then `getEntry` keeps the stored date,
/// the expiry and the freshness date, `putAllEntries` too, an expired copy is not served by `get`, `getEntry` or a
/// list, nor one that must never be served stale past its freshness date without that rule); `renewMetadata` renews
/// without rewriting the value, and a conditional read's renewal only the version it confirmed; changes are announced
/// after the writes that happened (an observer that reads the key as it hears the change reads the write), each as the
/// change it is (never ``Strata/DataChange/invalidateAll`` in its place), and failed writes and renewals announce
/// nothing.
public struct DataSourceConformance<Source: DataSource>: Sendable where Source.Value: Equatable {
    /// Which optional capabilities the source under test has.
    public struct Capabilities: Sendable {
        /// The source answers ``Strata/IdsQuery`` for `getAll`, `putAll` and `delete`; a `getAll` with a key it
        /// lacks is *not found*.
        public var multiKeyQueries: Bool
        /// The source answers ``Strata/AllObjectsQuery`` for `getAll` and `delete`.
        public var allObjectsQuery: Bool
        /// How many concurrent tasks the concurrency check runs.
        public var concurrentTasks: Int
        /// `getAll` of a ``Strata/KeyedQuery`` answers a list of one, and `putAll` stores exactly one value in it.
        public var keyedLists: Bool
        /// The source pages its key order for ``Strata/PaginationOffsetLimitQuery``.
        public var pagination: Bool
        /// The source follows the list rule of ``Strata/KeyValueStore``: a listing it was never given an answer
        /// for is *not found* (also after `delete(AllObjectsQuery())`), and a stored empty answer is served.
        public var listRule: Bool
        /// Keys are compared by canonical equivalence: a key written in NFC is read in NFD.
        public var canonicalKeys: Bool
        /// `putEntry` and `putAllEntries` keep the stored date, the expiry and the freshness date, `getEntry`
        /// returns them, and an entry whose expiry has passed is not served (one whose freshness date has passed
        /// is); a date that is not a finite time (NaN, infinite) is refused with `invalidArgument`, by `putEntry`
        /// and, with ``renewal``, by `renewMetadata`; an entry that must never be served stale
        /// (``Strata/EntryMetadata/forbidsServingStale``) keeps that rule past its freshness date, or is a miss.
        public var metadata: Bool
        /// `renewMetadata` renews an entry (expired or not) without rewriting its value, and answers `false` for
        /// a missing one; a conditional read's renewal renews only the version it confirmed, and leaves another
        /// (``Strata/EntryMetadata/renews(entryWithETag:lastModified:)``).
        public var renewal: Bool
        /// `changes(forKey:)` announces puts and deletes after they happened, each as the change it is (a put of
        /// two keys as two puts, not ``Strata/DataChange/invalidateAll``), and nothing for a failed write or a
        /// renewal.
        public var notifications: Bool
        /// Entries keep the tags they are written with (also through a `CacheRepository`), `getEntry` returns them,
        /// and `delete(TagQuery(tag))` removes every entry of the group and no other.
        public var tags: Bool

        /// Creates a set of capabilities; by default the rules of every source are checked, and the rules of a
        /// key-value store are not.
        ///
        /// - Parameters:
        ///   - multiKeyQueries: Whether ``Strata/IdsQuery`` is answered.
        ///   - allObjectsQuery: Whether ``Strata/AllObjectsQuery`` is answered.
        ///   - concurrentTasks: How many tasks the concurrency check runs.
        ///   - keyedLists: Whether keyed queries answer `getAll` and `putAll`.
        ///   - pagination: Whether pagination is answered.
        ///   - listRule: Whether the list rule holds.
        ///   - canonicalKeys: Whether keys are compared by canonical equivalence.
        ///   - metadata: Whether metadata travels with `putEntry`.
        ///   - renewal: Whether `renewMetadata` renews.
        ///   - notifications: Whether changes are announced.
        ///   - tags: Whether entries keep tags and a ``Strata/TagQuery`` deletes their group.
        public init(
            multiKeyQueries: Bool = true,
            allObjectsQuery: Bool = true,
            concurrentTasks: Int = 64,
            keyedLists: Bool = false,
            pagination: Bool = false,
            listRule: Bool = false,
            canonicalKeys: Bool = false,
            metadata: Bool = false,
            renewal: Bool = false,
            notifications: Bool = false,
            tags: Bool = false
        ) {
            self.multiKeyQueries = multiKeyQueries
            self.allObjectsQuery = allObjectsQuery
            self.concurrentTasks = concurrentTasks
            self.keyedLists = keyedLists
            self.pagination = pagination
            self.listRule = listRule
            self.canonicalKeys = canonicalKeys
            self.metadata = metadata
            self.renewal = renewal
            self.notifications = notifications
            self.tags = tags
        }

        /// Every rule: what Strata's key-value stores (memory, file, JSON file) pass.
        public static var keyValueStore: Capabilities {
            Capabilities(
                keyedLists: true,
                pagination: true,
                listRule: true,
                canonicalKeys: true,
                metadata: true,
                renewal: true,
                notifications: true,
                tags: true
            )
        }
    }

    let makeSource: @Sendable () async throws -> Source
    let makeValue: @Sendable (Int) -> Source.Value
    let capabilities: Capabilities

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
        try await check("IdQuery and KeyQuery name the same entry") { source in
            _ = try await source.put(makeValue(7), in: IdQuery(7))
            try expectEqual(try await source.get(KeyQuery("7")), makeValue(7), "get(KeyQuery) after put(IdQuery)")
            try await source.delete(IdQuery(7))
            try await expectCode(.notFound) { _ = try await source.get(KeyQuery("7")) }
        }
        try await check("an unknown query is queryNotSupported") { source in
            try await expectCode(.queryNotSupported) { _ = try await source.get(UnknownQuery()) }
            try await expectCode(.queryNotSupported) { _ = try await source.getAll(UnknownQuery()) }
            try await expectCode(.queryNotSupported) { _ = try await source.put(makeValue(1), in: UnknownQuery()) }
            try await expectCode(.queryNotSupported) { _ = try await source.putAll([makeValue(1)], in: UnknownQuery()) }
            try await expectCode(.queryNotSupported) { try await source.delete(UnknownQuery()) }
        }
        if capabilities.multiKeyQueries { try await checkMultiKeyQueries() }
        if capabilities.allObjectsQuery { try await checkAllObjectsQuery() }
        try await checkConcurrency()
        try await checkKeyValueStoreRules()
    }

    private func checkMultiKeyQueries() async throws {
        try await check("IdsQuery answers in its own order") { source in
            let values = [makeValue(3), makeValue(1), makeValue(2)]
            _ = try await source.putAll(values, in: IdsQuery(["c", "a", "b"]))
            try expectEqual(try await source.getAll(IdsQuery(["b", "c"])), [makeValue(2), makeValue(3)], "getAll")
            // Against the keys' order too: a store that answers in key order (`ORDER BY key`) would have a repository
            // match each value to another key.
            try expectEqual(
                try await source.getAll(IdsQuery(["c", "b"])),
                [makeValue(3), makeValue(2)],
                "getAll in an order other than the keys'"
            )
            try expectEqual(
                try await source.getAllEntries(IdsQuery(["c", "a"])).map(\.value),
                [makeValue(3), makeValue(1)],
                "getAllEntries in an order other than the keys'"
            )
            try await source.delete(IdsQuery(["a", "b"]))
            try await expectCode(.notFound) { _ = try await source.get(KeyQuery("a")) }
            try await expectCode(.notFound) { _ = try await source.get(KeyQuery("b")) }
            try expectEqual(try await source.get(KeyQuery("c")), makeValue(3), "a key outside the IdsQuery")
        }
        try await check("an IdsQuery with a key the source lacks is notFound") { source in
            _ = try await source.put(makeValue(1), in: KeyQuery("a"))
            // Never a shorter list: a repository would take it for the whole answer, its values in the wrong places.
            try await expectCode(.notFound) { _ = try await source.getAll(IdsQuery(["a", "missing"])) }
            try await expectCode(.notFound) { _ = try await source.getAll(IdsQuery(["missing", "a"])) }
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
            if capabilities.listRule {
                // The stored answers are gone: the source no longer knows the list.
                try await expectCode(.notFound) { _ = try await source.getAll(AllObjectsQuery()) }
            } else {
                try expectEqual(
                    try await source.getAll(AllObjectsQuery()).count,
                    0,
                    "count after delete(AllObjectsQuery)"
                )
            }
            try await expectCode(.notFound) { _ = try await source.get(KeyQuery("k0")) }
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

    func check(_ rule: String, _ body: (Source) async throws -> Void) async throws {
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
struct UnknownQuery: Query {}

func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: String) throws {
    guard actual == expected else {
        throw ConformanceFailure(rule: what, message: "\(what): expected \(expected), got \(actual)")
    }
}

func expectCode(_ code: StrataError.Code, _ body: () async throws -> Void) async throws {
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
