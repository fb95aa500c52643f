import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The source of the current date and of sleeping, injected wherever Strata reads time.
///
/// Expiry is measured in wall-clock `Date`s because it must survive a restart. Production code uses
/// ``SystemClock``; tests use `ManualClock` from StrataTesting, which moves only when told to.
public protocol WallClock: Sendable {
    /// The current date.
    func now() -> Date

    /// The current date for deciding whether an entry has expired: ``now()`` unless the clock says otherwise.
    ///
    /// A clock may answer from a cheaper, coarser source, never ahead of ``now()``: an entry is then seen
    /// expired up to one tick of that source late, never early (see ``SystemClock/init(coarseExpiryChecks:)``).
    func nowForExpiryCheck() -> Date

    /// Suspends the task for `duration`, or throws `CancellationError` when the task is cancelled.
    ///
    /// - Parameter duration: How long to sleep.
    func sleep(for duration: Duration) async throws

    /// Suspends the task until the clock reads `deadline` (returns at once when it already does), or throws
    /// `CancellationError` when the task is cancelled.
    ///
    /// A deadline does not move when the task starts sleeping later than it was computed: a timer set for a
    /// date fires at that date however long the task took to start.
    ///
    /// - Parameter deadline: The date to wake at.
    func sleep(until deadline: Date) async throws
}

extension WallClock {
    /// ``now()``: an expiry check reads the clock as everything else does.
    public func nowForExpiryCheck() -> Date { now() }

    /// Sleeps for the time from ``now()`` to `deadline`, none when it has passed; a deadline further than about 31
    /// years (`Date.distantFuture`, a date read from a damaged file) as that long, never a trap.
    ///
    /// - Parameter deadline: The date to wake at.
    public func sleep(until deadline: Date) async throws {
        try await sleep(for: .wait(seconds: deadline.timeIntervalSince(now())))
    }
}

/// The real clock: `Date()` and `Task.sleep`.
public struct SystemClock: WallClock {
    /// Whether expiry checks read the kernel's coarse clock.
    private let coarseExpiryChecks: Bool

    /// Creates the system clock.
    public init() { coarseExpiryChecks = false }

    /// Creates the system clock, with expiry checks on the kernel's coarse clock when asked.
    ///
    /// On Linux a coarse read (`CLOCK_REALTIME_COARSE`) costs a fraction of an exact one and lags it by at most
    /// one kernel tick (1 to 4 ms): an entry is seen expired up to a tick late, never early. Meant for lifetimes
    /// counted in whole seconds, such as HTTP's; elsewhere, and on other systems, expiry checks read ``now()``.
    ///
    /// - Parameter coarseExpiryChecks: Whether ``nowForExpiryCheck()`` reads the coarse clock.
    public init(coarseExpiryChecks: Bool) { self.coarseExpiryChecks = coarseExpiryChecks }

    /// The current date.
    public func now() -> Date { Date() }

    /// The current date, from the coarse clock when this clock was made with `coarseExpiryChecks`.
    public func nowForExpiryCheck() -> Date {
        #if canImport(Glibc)
            if coarseExpiryChecks {
                var time = timespec()
                if clock_gettime(CLOCK_REALTIME_COARSE, &time) == 0 {
                    return Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9)
                }
            }
        #endif
        return Date()
    }

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
    /// The duration in seconds as a `TimeInterval`, for arithmetic with `Date`; past about 2⁶³ seconds either way,
    /// ±2⁶³ seconds.
    public var timeInterval: TimeInterval {
        let parts = saturatedComponents
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
