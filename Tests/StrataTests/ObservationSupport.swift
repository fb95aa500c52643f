import Strata
import StrataTestSupport
import Testing

/// Collects what an async sequence yields, and lets a test wait for a condition on it without sleeping:
/// a waiter is resumed by the append that satisfies it, or fails after a generous deadline.
final class Recorder<Element: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let predicate: @Sendable ([Element], Bool) -> Bool
        let continuation: CheckedContinuation<[Element], any Error>
    }

    private struct State {
        var items: [Element] = []
        var finished = false
        var waiters: [Waiter] = []
        var nextID = 0
    }

    struct TimedOut: Error, CustomStringConvertible {
        let items: String
        var description: String { "Timed out; recorded: \(items)" }
    }

    private let state = Locked(State())

    var items: [Element] { state.withLock { $0.items } }
    var isFinished: Bool { state.withLock { $0.finished } }

    func append(_ item: Element) {
        let ready = state.withLock { state -> [(CheckedContinuation<[Element], any Error>, [Element])] in
            state.items.append(item)
            return takeSatisfied(&state)
        }
        for (continuation, items) in ready { continuation.resume(returning: items) }
    }

    func finish() {
        let ready = state.withLock { state -> [(CheckedContinuation<[Element], any Error>, [Element])] in
            state.finished = true
            return takeSatisfied(&state)
        }
        for (continuation, items) in ready { continuation.resume(returning: items) }
    }

    /// Waits until `predicate` holds for the recorded items; fails after `deadline` (a guard, not a timing).
    @discardableResult
    func wait(
        deadline: Duration = .seconds(20),
        until predicate: @escaping @Sendable ([Element]) -> Bool
    ) async throws -> [Element] {
        try await wait(deadline: deadline) { items, _ in predicate(items) }
    }

    private func wait(
        deadline: Duration,
        satisfying predicate: @escaping @Sendable ([Element], Bool) -> Bool
    ) async throws -> [Element] {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        let guardTask = Task { [weak self] in
            try? await Task.sleep(for: deadline)
            self?.expire(id)
        }
        defer { guardTask.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let items = state.withLock { state -> [Element]? in
                if predicate(state.items, state.finished) { return state.items }
                state.waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
                return nil
            }
            if let items { continuation.resume(returning: items) }
        }
    }

    /// Waits until `count` items are recorded and returns them.
    @discardableResult
    func wait(forCount count: Int) async throws -> [Element] {
        try await wait { $0.count >= count }
    }

    /// Waits until the recorded sequence ended.
    func waitForFinish() async throws {
        _ = try await wait(deadline: .seconds(20)) { _, finished in finished }
    }

    private func expire(_ id: Int) {
        let expired = state.withLock { state -> (Waiter, [Element])? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return (state.waiters.remove(at: index), state.items)
        }
        if let (waiter, items) = expired {
            waiter.continuation.resume(throwing: TimedOut(items: "\(items)"))
        }
    }

    private func takeSatisfied(_ state: inout State) -> [(CheckedContinuation<[Element], any Error>, [Element])] {
        var ready: [(CheckedContinuation<[Element], any Error>, [Element])] = []
        state.waiters.removeAll { waiter in
            guard waiter.predicate(state.items, state.finished) else { return false }
            ready.append((waiter.continuation, state.items))
            return true
        }
        return ready
    }
}

/// Consumes a stream into a recorder in a task the test can cancel.
struct Observation<Value: Sendable>: Sendable {
    let recorder = Recorder<RepositoryResponse<Value>>()
    let task: Task<Void, Never>

    init(_ stream: AsyncStream<RepositoryResponse<Value>>) {
        let recorder = recorder
        task = Task {
            for await response in stream { recorder.append(response) }
            recorder.finish()
        }
    }

    /// The descriptions of the responses so far, such as `["loading(cache)", "value(a, cache)"]`.
    var trace: [String] { recorder.items.map(\.description) }

    /// Waits until a response satisfies `predicate` and returns the descriptions so far.
    @discardableResult
    func wait(
        until predicate: @escaping @Sendable (RepositoryResponse<Value>) -> Bool
    ) async throws -> [String] {
        try await recorder.wait { $0.contains(where: predicate) }.map(\.description)
    }

    /// Waits until `count` responses arrived and returns their descriptions.
    @discardableResult
    func wait(forCount count: Int) async throws -> [String] {
        try await recorder.wait(forCount: count).map(\.description)
    }

    /// Waits until the last response satisfies `predicate`.
    @discardableResult
    func waitForLast(
        _ predicate: @escaping @Sendable (RepositoryResponse<Value>) -> Bool
    ) async throws -> [String] {
        try await recorder.wait { $0.last.map(predicate) ?? false }.map(\.description)
    }
}

/// Waits until `condition` holds (``poll(within:until:)``: the thread is let go between checks, never held by a
/// spin); records a timeout naming `description` and throws after a generous deadline (a guard against hanging, not a
/// timing).
func eventually(
    _ description: String,
    deadline: Duration = .seconds(20),
    _ condition: () -> Bool
) async throws {
    guard await poll(within: deadline, until: condition) else {
        Issue.record("Timed out after \(deadline) waiting for \(description)")
        throw CancellationError()
    }
}
