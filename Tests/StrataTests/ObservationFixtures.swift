import Foundation
import Strata
import StrataTestSupport
import StrataTesting

/// A key-value source that records stored dates and announces its changes: what implementing the capabilities
/// (``DataSourceCapabilities``) takes for a source of one's own.
final class ObservableStore<Value: Sendable>: DataSource {
    let changeBroadcaster = ChangeBroadcaster()
    let origin: DataOrigin
    private let clock: any WallClock
    private let entries = Locked<[String: StoredEntry<Value>]>([:])
    private let failures = Locked<[any Error]>([])
    private let getGate = Locked<AsyncGate?>(nil)

    init(_ contents: [String: Value] = [:], origin: DataOrigin = .file, clock: any WallClock = ManualClock()) {
        self.origin = origin
        self.clock = clock
        let now = clock.now()
        entries.withLock { entries in
            for (key, value) in contents { entries[key] = StoredEntry(value: value, storedAt: now) }
        }
    }

    var contents: [String: Value] { entries.withLock { $0.mapValues(\.value) } }

    /// Makes the next gets fail with `error`, once per error given.
    func failGets(with errors: any Error...) { failures.withLock { $0.append(contentsOf: errors) } }

    /// Holds every later get at `gate`, before it reads, while the gate is closed.
    func holdGets(at gate: AsyncGate) { getGate.withLock { $0 = gate } }

    func changes(forKey key: String?) -> AsyncStream<DataChange> { changeBroadcaster.changes(forKey: key) }

    func getEntry(_ query: any Query) async throws -> StoredEntry<Value> {
        if let gate = getGate.withLock({ $0 }) { await gate.enter() }
        if let failure = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw failure }
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        guard let entry = entries.withLock({ $0[query.key] }) else { throw StrataError.notFound() }
        return entry
    }

    func getAllEntries(_ query: any Query) async throws -> [StoredEntry<Value>] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func get(_ query: any Query) async throws -> Value { try await getEntry(query).value }

    func getAll(_ query: any Query) async throws -> [Value] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func put(_ value: Value, in query: any Query) async throws -> Value {
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        let entry = StoredEntry(value: value, storedAt: clock.now())
        entries.withLock { $0[query.key] = entry }
        changeBroadcaster.publishWrite(to: query)
        return value
    }

    func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        throw StrataError.queryNotSupported(query, by: Self.self)
    }

    func delete(_ query: any Query) async throws {
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        entries.withLock { $0[query.key] = nil }
        changeBroadcaster.publishDeletion(of: query)
    }
}

/// A repository whose cache is an observable store behind a validator on a manual clock, and whose main
/// source is a scripted fake that announces nothing.
struct ObservedHarness {
    let clock = ManualClock()
    let cache: ObservableStore<String>
    let main: ScriptedDataSource<String>
    let repository:
        CacheRepository<
            ScriptedDataSource<String>,
            ValidatedDataSource<ObservableStore<String>, StoredTimeValidator<String>>
        >

    init(main mainContents: [String: String] = [:], cache cacheContents: [String: String] = [:]) {
        cache = ObservableStore(cacheContents, clock: clock)
        main = ScriptedDataSource(mainContents)
        repository = CacheRepository(main: main, cache: cache.validated(by: .maxAge(.seconds(60), clock: clock)))
    }

    func observe(
        _ key: String = "1",
        _ operation: any RepositoryOperation = DefaultOperation()
    ) -> Observation<String> {
        Observation(repository.stream(KeyQuery(key), operation: operation, bufferingNewest: 64))
    }
}
