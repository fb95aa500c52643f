/// Waits until `condition` holds, or the task is cancelled (a test's time limit ends the wait): checks it, and lets
/// the thread go for a millisecond between checks.
///
/// Not `Task.yield()` in a loop, which keeps the thread busy: on a machine of two cores, two tests spinning so hold
/// both threads of the task pool, and take the cores from the dispatch work they wait for (a write-behind queue's
/// drain, a URLSession callback) and from every other test.
///
/// - Parameter condition: What to wait for.
package func poll(until condition: () -> Bool) async {
    await poll(until: { () async -> Bool in condition() })
}

/// Waits until `condition`, a check that awaits (an actor's state), holds, as ``poll(until:)`` waits for a synchronous
/// one: the one loop of both.
///
/// - Parameter condition: What to wait for.
package func poll(until condition: () async -> Bool) async {
    while await !condition() {
        if Task.isCancelled { return }
        try? await Task.sleep(for: .milliseconds(1))
    }
}

/// Waits until `condition` holds, as ``poll(until:)`` does, for at most `limit` (a guard against a hang, not a timing):
/// whether it held. A test says what it waited for when it did not.
///
/// - Parameters:
///   - limit: The longest wait.
///   - condition: What to wait for.
/// - Returns: Whether `condition` held at the end of the wait.
package func poll(within limit: Duration, until condition: () -> Bool) async -> Bool {
    await poll(within: limit, until: { () async -> Bool in condition() })
}

/// Waits until `condition`, a check that awaits (an actor's state), holds, for at most `limit`, as the synchronous
/// ``poll(within:until:)`` does: whether it held.
///
/// - Parameters:
///   - limit: The longest wait.
///   - condition: What to wait for.
/// - Returns: Whether `condition` held at the end of the wait.
package func poll(within limit: Duration, until condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    await poll { () async -> Bool in await condition() || ContinuousClock.now >= deadline }
    return await condition()
}
