import Foundation
import Strata

/// A clock that moves only when a test tells it to, so time-dependent behaviour is tested without
/// sleeping.
///
/// ``sleep(for:)`` and ``sleep(until:)`` suspend until ``advance(by:)`` moves the clock to the sleeper's deadline,
/// and throw `CancellationError` when the sleeping task is cancelled.
///
/// The clock keeps the time since its start as an exact `Duration`, and tells ``now()`` from it: a `Date` near today
/// tells time to about a tenth of a microsecond only. A ``sleep(for:)`` wakes exactly when the advances add up to its
/// duration, however they are split, and a date the clock tells is the same however the clock got there. The time
/// left until a date (``sleep(until:)``) is taken to the nearest microsecond.
///
/// ```swift
/// let clock = ManualClock()
/// let memory = MemoryDataSource<String>(configuration: .init(clock: clock))  // stamps entries with the same clock
/// let cache = memory.validated(by: .maxAge(.seconds(60), clock: clock))
/// _ = try await cache.put("v", in: KeyQuery("k"))
/// clock.advance(by: .seconds(61))   // the cached value is now invalid
/// ```
public final class ManualClock: WallClock {
    private struct Sleeper {
        let id: UInt64
        /// The time since the clock's start at which the sleeper wakes.
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// A task in ``waitForSleepers(_:)``, resumed once `count` tasks sleep or it is cancelled.
    private struct Watcher {
        let id: UInt64
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        let start: Date
        /// The time since ``start``, exact; at most `Int64.max` seconds.
        var elapsed: Duration = .zero
        var sleepers: [Sleeper] = []
        var watchers: [Watcher] = []
        var nextID: UInt64 = 0
        var sleepCalls: [Duration] = []

        /// The clock's current date.
        var now: Date { start.addingTimeInterval(elapsed.timeInterval) }

        /// Removes the watchers whose count of sleepers is reached, for the caller to resume outside the lock.
        mutating func satisfiedWatchers() -> [Watcher] {
            let count = sleepers.count
            let satisfied = watchers.filter { $0.count <= count }
            watchers.removeAll { $0.count <= count }
            return satisfied
        }
    }

    private let state: Locked<State>

    /// Creates a clock that starts at `start`.
    ///
    /// - Parameter start: The initial date; a fixed date by default so tests are repeatable.
    public init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Locked(State(start: start))
    }

    /// The clock's current date.
    public func now() -> Date { state.withLock { $0.now } }

    /// Every duration passed to ``sleep(for:)`` so far (for ``sleep(until:)``, the time that was left), in call order.
    public var sleepCalls: [Duration] { state.withLock { $0.sleepCalls } }

    /// The number of tasks currently suspended in ``sleep(for:)`` or ``sleep(until:)``.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    ///
    /// - Parameter duration: How far to move; negative durations are ignored.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            if duration > .zero { state.elapsed = Self.time(state.elapsed, plus: duration) }
            let due = state.sleepers.filter { $0.deadline <= state.elapsed }
            state.sleepers.removeAll { $0.deadline <= state.elapsed }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Suspends until the clock is advanced by `duration` from now; returns at once for a zero duration.
    ///
    /// - Parameter duration: How long to sleep on this clock.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleep(recording: duration) { elapsed in Self.time(elapsed, plus: duration) }
    }

    /// Suspends until the clock is advanced to `deadline`; returns at once when it is there already. The time left
    /// until it, to the nearest microsecond, is recorded in ``sleepCalls`` and waited (at most about 31 years: a date
    /// further, infinite or not a number is taken as that long, or as none, as the system clock waits).
    ///
    /// - Parameter deadline: The date to wake at.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Date) async throws {
        let (left, due) = state.withLock { state in
            let left = Duration.wait(seconds: deadline.timeIntervalSince(state.now))
            // A date near today is exact to about a tenth of a microsecond: a date set some time from the clock's
            // own (`now() + 6 ms`) is that time away, not 6.0000001 ms
            let microseconds = Duration.microseconds(Int64((left / .microseconds(1)).rounded()))
            return (microseconds, Self.time(state.elapsed, plus: microseconds))
        }
        try await sleep(recording: left) { _ in due }
    }

    /// `elapsed` moved on by `duration` (not negative), at most to `Int64.max` seconds: the clock never overflows.
    private static func time(_ elapsed: Duration, plus duration: Duration) -> Duration {
        let latest = Duration.seconds(Int64.max)
        return duration >= latest - elapsed ? latest : elapsed + duration
    }

    /// Records `duration` in ``sleepCalls``, then suspends until the clock reaches the deadline `deadline` computes
    /// from the clock's time since its start when the sleeper is registered.
    private func sleep(
        recording duration: Duration,
        until deadline: @escaping @Sendable (Duration) -> Duration
    ) async throws {
        let id = state.withLock { state -> UInt64 in
            state.sleepCalls.append(duration)
            state.nextID += 1
            return state.nextID
        }
        try Task.checkCancellation()
        if duration <= .zero { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers) = state.withLock { state -> (Result<Void, any Error>?, [Watcher]) in
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    let deadline = deadline(state.elapsed)
                    if deadline <= state.elapsed { return (.success(()), []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, state.satisfiedWatchers())
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
                for watcher in watchers { watcher.continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Waits until at least `count` tasks are suspended in ``sleep(for:)`` or ``sleep(until:)``.
    ///
    /// It suspends until a sleeper makes the count (it does not spin). It returns at once when the calling task is
    /// cancelled, before or while it waits, whether or not the count was reached: a test whose code never sleeps ends
    /// at its time limit instead of hanging the run. Check ``sleeperCount`` after it if that matters.
    ///
    /// - Parameter count: How many sleepers to wait for.
    public func waitForSleepers(_ count: Int = 1) async {
        await state.suspend(numbering: \.nextID) { state, id, continuation in
            guard state.sleepers.count < count else { return false }
            state.watchers.append(Watcher(id: id, count: count, continuation: continuation))
            return true
        } removing: { state, id in
            guard let index = state.watchers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.watchers.remove(at: index).continuation
        }
    }
}
