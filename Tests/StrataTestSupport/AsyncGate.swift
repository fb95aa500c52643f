import Strata

/// A gate that async callers pass while it is open and wait at while it is closed: how a test holds a call (a read,
/// a delete, a plugin's answer) at a point of its choosing, then lets it go.
///
/// ```swift
/// let gate = AsyncGate(isOpen: false)
/// let read = Task { await gate.enter(); return try await store.get(query) }
/// await gate.waitForWaiting(1)   // the read is held now
/// gate.open()
/// ```
package final class AsyncGate: Sendable {
    private struct State {
        var isOpen: Bool
        var entered = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Locked<State>
    private let arrival: AsyncStream<Void>.Continuation

    /// One element for each caller held at the gate, as it is held.
    package let arrivals: AsyncStream<Void>

    /// Creates a gate, open or closed.
    ///
    /// - Parameter isOpen: Whether callers pass at first.
    package init(isOpen: Bool) {
        state = Locked(State(isOpen: isOpen))
        (arrivals, arrival) = AsyncStream.makeStream(of: Void.self)
    }

    /// How many callers have entered, held or not.
    package var entered: Int { state.withLock { $0.entered } }

    /// How many callers wait at the gate now.
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Counts the caller and, while the gate is closed, suspends it until ``open()``.
    package func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state in
                state.entered += 1
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if passes { continuation.resume() } else { arrival.yield() }
        }
    }

    /// Makes the callers that follow wait.
    package func close() { state.withLock { $0.isOpen = false } }

    /// Lets every waiting caller through, and the callers that follow until ``close()``.
    package func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Waits until `count` callers have entered, held or not.
    package func waitForEntered(_ count: Int) async {
        await poll { entered >= count }
    }
}
