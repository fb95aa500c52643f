/// Waits until `condition` holds, or the task is cancelled (a test's time limit ends the wait): checks it, and lets
/// the thread go for a millisecond between checks.
///
/// Not `Task.yield()` in a loop, which keeps the thread busy: on a machine of two cores, two tests spinning so hold
/// both threads of the task pool, and take the cores from the dispatch work they wait for (a write-behind queue's
/// drain, a URLSession callback) and from every other test.
///
/// - Parameter condition: What to wait for.
package func poll(until condition: () -> Bool) async {
    while !condition() {
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
    let deadline = ContinuousClock.now + limit
    await poll { condition() || ContinuousClock.now >= deadline }
    return condition()
}
