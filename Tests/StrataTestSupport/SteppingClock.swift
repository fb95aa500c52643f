import Foundation
import Strata

/// A clock at a fixed date that runs an action once, at a chosen reading: a way into the moment between two steps of
/// a store or a provider, each of which reads the clock (a put reads it for its date before it writes its file, and
/// once more as it commits).
public final class SteppingClock: WallClock {
    private struct Pending {
        var readingsLeft = 0
        var action: (@Sendable () -> Void)?
        var ran = false
    }

    /// The date every reading gives.
    public let date = Date(timeIntervalSince1970: 1_700_000_000)
    private let pending = Locked(Pending())

    /// Creates a clock with no action.
    public init() {}

    /// Runs `action` at the `reading`-th call of ``now()`` from here on (1: the next).
    public func run(atReading reading: Int, _ action: @escaping @Sendable () -> Void) {
        pending.withLock { $0 = Pending(readingsLeft: reading, action: action) }
    }

    /// Whether the action was run.
    public var ran: Bool { pending.withLock { $0.ran } }

    /// The fixed date, after running the action when this is its reading.
    public func now() -> Date {
        let due = pending.withLock { state -> (@Sendable () -> Void)? in
            guard let action = state.action else { return nil }
            state.readingsLeft -= 1
            guard state.readingsLeft == 0 else { return nil }
            state.action = nil
            state.ran = true
            return action
        }
        due?()
        return date
    }

    /// Returns at once: the clock stands still.
    public func sleep(for duration: Duration) async throws {}
}
