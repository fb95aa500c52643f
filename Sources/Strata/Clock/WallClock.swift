import Foundation

/// The source of the current date and of sleeping, injected wherever Strata reads time.
///
/// Expiry is measured in wall-clock `Date`s because it must survive a restart. Production code uses
/// ``SystemClock``; tests use `ManualClock` from StrataTesting, which moves only when told to.
public protocol WallClock: Sendable {
    /// The current date.
    func now() -> Date

    /// Suspends the task for `duration`, or throws `CancellationError` when the task is cancelled.
    ///
    /// - Parameter duration: How long to sleep.
    func sleep(for duration: Duration) async throws
}

/// The real clock: `Date()` and `Task.sleep`.
public struct SystemClock: WallClock {
    /// Creates the system clock.
    public init() {}

    /// The current date.
    public func now() -> Date { Date() }

    /// Sleeps on the continuous clock.
    ///
    /// - Parameter duration: How long to sleep.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

extension WallClock where Self == SystemClock {
    /// The real clock.
    public static var system: SystemClock { SystemClock() }
}

extension Duration {
    /// The duration in seconds as a `TimeInterval`, for arithmetic with `Date`.
    public var timeInterval: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
