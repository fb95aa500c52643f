import Strata
import StrataTestSupport
import StrataTesting

/// A key-value data source for plugin tests: counts calls, can hold reads at a gate, can fail.
final class PluginTestStore<Value: Sendable>: DataSource {
    private struct State {
        var values: [String: Value] = [:]
        var calls: [PluginCall.Method: Int] = [:]
        var failures: [StrataError] = []
        var gatedWritesLeft: Int
    }

    private let state: Locked<State>
    private let gate: AsyncGate?
    private let readsBeforeGate: Bool
    private let writeGate: AsyncGate?
    private let clock: ManualClock?
    private let readDurations: Locked<[Duration]>

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - values: The initial entries.
    ///   - gate: Reads wait at this gate.
    ///   - readsBeforeGate: Whether a `get` reads its value before it waits at `gate` (a slow answer of the value
    ///     as it was), rather than after.
    ///   - writeGate: Puts and deletes wait at this gate before they change anything.
    ///   - gatedWrites: How many puts and deletes, the first ones, wait at `writeGate`; the later ones pass.
    ///   - clock: Reads advance this clock by the next of `readDurations`.
    ///   - readDurations: How long each read "takes" on the clock.
    init(
        _ values: [String: Value] = [:],
        gate: AsyncGate? = nil,
        readsBeforeGate: Bool = false,
        writeGate: AsyncGate? = nil,
        gatedWrites: Int = .max,
        clock: ManualClock? = nil,
        readDurations: [Duration] = []
    ) {
        state = Locked(State(values: values, gatedWritesLeft: gatedWrites))
        self.gate = gate
        self.readsBeforeGate = readsBeforeGate
        self.writeGate = writeGate
        self.clock = clock
        self.readDurations = Locked(readDurations)
    }

    /// The next reads fail with these errors, in order.
    func failNext(_ errors: StrataError...) { state.withLock { $0.failures += errors } }

    /// How many times `method` was called.
    func calls(_ method: PluginCall.Method) -> Int { state.withLock { $0.calls[method, default: 0] } }

    /// The value under `key`, read without counting.
    func peek(_ key: String) -> Value? { state.withLock { $0.values[key] } }

    private func begin(_ method: PluginCall.Method) async throws {
        let (failure, waits) = state.withLock { state -> (StrataError?, Bool) in
            state.calls[method, default: 0] += 1
            let waits = !method.isRead && state.gatedWritesLeft > 0
            if waits { state.gatedWritesLeft -= 1 }
            return (state.failures.isEmpty ? nil : state.failures.removeFirst(), waits)
        }
        if waits, let writeGate { await writeGate.enter() }
        if method.isRead, !(readsBeforeGate && method == .get) {
            if let gate { await gate.enter() }
            if let clock, let duration = readDurations.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                clock.advance(by: duration)
            }
        }
        if let failure { throw failure }
    }

    private func key(_ query: any Query) throws -> String {
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        return query.key
    }

    func get(_ query: any Query) async throws -> Value {
        let before = (try? key(query)).flatMap { key in state.withLock { $0.values[key] } }
        try await begin(.get)
        let key = try key(query)
        if readsBeforeGate, let gate { await gate.enter() }
        guard let value = readsBeforeGate ? before : state.withLock({ $0.values[key] }) else {
            throw StrataError.notFound()
        }
        return value
    }

    func getAll(_ query: any Query) async throws -> [Value] {
        try await begin(.getAll)
        guard let query = query as? any MultiKeyedQuery else {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        return try state.withLock { state in
            try query.keys.map { id in
                guard let value = state.values[id] else { throw StrataError.notFound() }
                return value
            }
        }
    }

    func put(_ value: Value, in query: any Query) async throws -> Value {
        try await begin(.put)
        let key = try key(query)
        state.withLock { $0.values[key] = value }
        return value
    }

    func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        try await begin(.putAll)
        guard let query = query as? any MultiKeyedQuery, query.keys.count == values.count else {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        state.withLock { state in
            for (id, value) in zip(query.keys, values) { state.values[id] = value }
        }
        return values
    }

    func delete(_ query: any Query) async throws {
        try await begin(.delete)
        let keys = try (query as? any MultiKeyedQuery)?.keys ?? [key(query)]
        state.withLock { state in
            for key in keys { state.values.removeValue(forKey: key) }
        }
    }
}

/// A plugin that writes `name>` before and `<name` after each call into a shared journal.
struct TracingPlugin: StrataPlugin {
    let name: String
    let journal: PluginTestJournal

    func intercept<R: Sendable>(_ call: PluginCall, next: @escaping @Sendable () async throws -> R) async throws -> R {
        journal.append("\(name)>")
        defer { journal.append("<\(name)") }
        return try await next()
    }
}

/// A shareable journal of strings.
final class PluginTestJournal: Sendable {
    private let lines = Locked<[String]>([])

    /// Every line so far.
    var all: [String] { lines.withLock { $0 } }

    /// Adds a line.
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// A query that is not `Hashable`, so it is never coalesced.
struct PluginTestUnhashableQuery: KeyedQuery {
    let key: String
}

/// Advances `clock` through `count` sleeps of whatever length, then returns the task's outcome.
func drive<T: Sendable>(
    _ task: Task<T, any Error>,
    clock: ManualClock,
    sleeps count: Int
) async -> Result<T, any Error> {
    for _ in 0..<count {
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3_600))
    }
    do {
        return .success(try await task.value)
    } catch {
        return .failure(error)
    }
}
