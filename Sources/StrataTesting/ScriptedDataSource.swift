import Strata

/// A fake data source whose answers a test scripts call by call, with a key-value store behind it for
/// every call that has no script.
///
/// ```swift
/// let main = ScriptedDataSource<String>()
/// main.script(.get, .failure(StrataError(.network, "offline")))   // the next get fails
/// main.script(.put, .transform { $0.uppercased() })                 // the next put stores "ABC" for "abc"
/// ```
///
/// Unscripted calls read and write a plain in-memory store: `get` and `put` of a ``Strata/KeyedQuery``; `getAll`
/// and `putAll` of a ``Strata/MultiKeyedQuery`` (one value per key); `getAll` of ``Strata/AllObjectsQuery`` (key
/// order); `delete` of all three. Other calls throw ``Strata/StrataError/Code/queryNotSupported`` — `getAll` and
/// `putAll` of a keyed query too.
public final class ScriptedDataSource<Value: Sendable>: DataSource {
    /// What one scripted call does.
    public enum Outcome: Sendable {
        /// Returns this value (for get and put) without touching the store.
        case value(Value)
        /// Returns these values (for getAll and putAll) without touching the store.
        case values([Value])
        /// Throws this error.
        case failure(any Error)
        /// For put: stores and returns the transformed value instead of the given one.
        case transform(@Sendable (Value) -> Value)
    }

    /// Outcomes queued for the calls of one method: a run of calls that all get the same outcome.
    private struct Run {
        let outcome: Outcome
        var calls: Int
    }

    private struct State {
        var store: [String: Value] = [:]
        var scripts: [SpyCall.Method: [Run]] = [:]
        var callCounts: [SpyCall.Method: Int] = [:]
    }

    private let state = Locked(State())

    /// Creates a fake with an optional initial content.
    ///
    /// - Parameter contents: Values by key.
    public init(_ contents: [String: Value] = [:]) {
        state.withLock { $0.store = contents }
    }

    /// Queues outcomes for the next calls of `method`, used in order before falling back to the store.
    ///
    /// - Parameters:
    ///   - method: The method the outcomes are for.
    ///   - outcomes: One outcome per call.
    public func script(_ method: SpyCall.Method, _ outcomes: Outcome...) {
        state.withLock {
            $0.scripts[method, default: []].append(contentsOf: outcomes.map { Run(outcome: $0, calls: 1) })
        }
    }

    /// Makes the next `times` calls of `method` fail with `error`, after the outcomes queued before: by default, every
    /// call until ``clearScripts()``.
    ///
    /// - Parameters:
    ///   - method: The method to fail.
    ///   - error: The error to throw.
    ///   - times: How many calls fail, at most; 1,000,000 by default; none for zero or less.
    public func fail(_ method: SpyCall.Method, with error: any Error, times: Int = 1_000_000) {
        guard times > 0 else { return }
        state.withLock { $0.scripts[method, default: []].append(Run(outcome: .failure(error), calls: times)) }
    }

    /// Removes every queued outcome.
    public func clearScripts() { state.withLock { $0.scripts.removeAll() } }

    /// How many times `method` was called.
    ///
    /// - Parameter method: The method.
    public func callCount(_ method: SpyCall.Method) -> Int { state.withLock { $0.callCounts[method, default: 0] } }

    /// The stored contents by key.
    public var contents: [String: Value] { state.withLock { $0.store } }

    private func next(_ method: SpyCall.Method) -> Outcome? {
        state.withLock { state in
            state.callCounts[method, default: 0] += 1
            // In place: a copy of the queue at every call would copy every outcome left, under the lock
            guard let run = state.scripts[method]?.first else { return nil }
            if run.calls > 1 {
                state.scripts[method]?[0].calls -= 1
            } else {
                state.scripts[method]?.removeFirst()
            }
            return run.outcome
        }
    }

    /// Answers from the script, else from the store.
    public func get(_ query: any Query) async throws -> Value {
        switch next(.get) {
        case .value(let value): return value
        case .failure(let error): throw error
        case .values, .transform, nil: break
        }
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        guard let value = contents[query.key] else { throw StrataError.notFound(key: query.key) }
        return value
    }

    /// Answers from the script, else from the store.
    public func getAll(_ query: any Query) async throws -> [Value] {
        switch next(.getAll) {
        case .values(let values): return values
        case .failure(let error): throw error
        case .value, .transform, nil: break
        }
        let store = contents
        switch query {
        case let query as any MultiKeyedQuery:
            return try query.keys.map { key in
                guard let value = store[key] else { throw StrataError.notFound(key: key) }
                return value
            }
        case is AllObjectsQuery: return store.keys.sorted().compactMap { store[$0] }
        default: throw StrataError.queryNotSupported(query, by: Self.self)
        }
    }

    /// Answers from the script, else stores the value.
    public func put(_ value: Value, in query: any Query) async throws -> Value {
        var stored = value
        switch next(.put) {
        case .value(let value): return value
        case .failure(let error): throw error
        case .transform(let transform): stored = transform(value)
        case .values, nil: break
        }
        guard let query = query as? any KeyedQuery else { throw StrataError.queryNotSupported(query, by: Self.self) }
        state.withLock { $0.store[query.key] = stored }
        return stored
    }

    /// Answers from the script, else stores the values.
    public func putAll(_ values: [Value], in query: any Query) async throws -> [Value] {
        var stored = values
        switch next(.putAll) {
        case .values(let values): return values
        case .failure(let error): throw error
        case .transform(let transform): stored = values.map(transform)
        case .value, nil: break
        }
        guard let query = query as? any MultiKeyedQuery, query.keys.count == stored.count else {
            throw StrataError.queryNotSupported(query, by: Self.self)
        }
        state.withLock { state in
            for (key, value) in zip(query.keys, stored) { state.store[key] = value }
        }
        return stored
    }

    /// Answers from the script, else deletes from the store.
    public func delete(_ query: any Query) async throws {
        if case .failure(let error) = next(.delete) { throw error }
        switch query {
        case let query as any KeyedQuery: _ = state.withLock { $0.store.removeValue(forKey: query.key) }
        case let query as any MultiKeyedQuery:
            state.withLock { state in for key in query.keys { state.store.removeValue(forKey: key) } }
        case is AllObjectsQuery: state.withLock { $0.store.removeAll() }
        default: throw StrataError.queryNotSupported(query, by: Self.self)
        }
    }
}
