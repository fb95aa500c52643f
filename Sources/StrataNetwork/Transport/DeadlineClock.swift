import Strata

/// The clock a transport reads its requests' deadlines on: the continuous clock, moved on by what a test added
/// (``advance(by:)``), so that a test passes a deadline without waiting for it.
///
/// Whatever watches deadlines registers a look (``watch(_:)``) for as long as it does, and the clock runs it each time
/// it is moved on: a deadline the move passed is seen at once, as it would have been once that much time had passed.
package final class DeadlineClock: Sendable {
    private struct State {
        /// What the clock has been moved on by, past the continuous clock: zero but in tests.
        var offset = Duration.zero
        /// The looks to run when the clock is moved on, by number.
        var looks: [UInt64: @Sendable () -> Void] = [:]
        var lastLook: UInt64 = 0
    }

    private let state = Locked(State())

    /// Whether the clock was ever moved on: until then (always, outside tests) its time is the continuous clock's,
    /// read without the lock every running request's clock reads would otherwise share.
    private let wasMoved = AtomicCount()

    /// A clock that reads the continuous clock's time.
    package init() {}

    /// A clock no one moves on: the one of a transport that keeps none (``HTTPTransport/clockForDeadlines``).
    package static let continuous = DeadlineClock()

    /// The time on the clock: the continuous clock's, moved on by what ``advance(by:)`` added.
    package var now: ContinuousClock.Instant {
        guard wasMoved.value != 0 else { return .now }
        return .now + state.withLock { $0.offset }
    }

    /// Tests only: moves the clock `duration` forward, then runs every look registered.
    ///
    /// - Parameter duration: How far the clock moves.
    package func advance(by duration: Duration) {
        let looks = state.withLock { state in
            state.offset += duration
            return Array(state.looks.values)
        }
        // Set once the offset is written: a reader that sees it takes the lock, and reads that offset.
        wasMoved.add(1)
        for look in looks { look() }
    }

    /// Registers `look`, run each time the clock is moved on, until ``stopWatching(_:)`` is called with the number
    /// returned.
    ///
    /// - Parameter look: What looks at the deadlines at once.
    /// - Returns: The look's number.
    package func watch(_ look: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            state.lastLook &+= 1
            state.looks[state.lastLook] = look
            return state.lastLook
        }
    }

    /// Forgets the look numbered `number`.
    ///
    /// - Parameter number: What ``watch(_:)`` returned.
    package func stopWatching(_ number: UInt64) {
        _ = state.withLock { $0.looks.removeValue(forKey: number) }
    }
}
