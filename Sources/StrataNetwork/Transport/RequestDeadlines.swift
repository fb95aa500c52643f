import Foundation
import Strata

/// The two deadlines of one request, which ``URLSessionTransport`` enforces with its own timer: an idle
/// timeout (no byte sent or received for that long) and a total deadline (the whole exchange, body
/// included, within that long).
///
/// Both are honoured to the millisecond. FoundationNetworking cannot do either: it truncates
/// `URLRequest.timeoutInterval` to whole seconds (a 500 ms timeout fires at once) and restarts it at
/// every byte (a body trickling one byte every 100 ms never times out), so the transport sets URLSession's
/// own timeout to ``backstop``, out of the way, and cancels the task itself when a deadline passes.
///
/// Package-wide, so that every transport of this package (the AsyncHTTPClient one too) decides its deadlines
/// and words its timeout errors the same way.
package struct RequestDeadlines: Sendable, Equatable {
    /// Which deadline passed.
    package enum Expiry: Sendable, Equatable {
        /// No byte for ``RequestDeadlines/idle``.
        case idle
        /// The exchange took longer than ``RequestDeadlines/total``.
        case total
    }

    /// What the timer does next.
    package enum Verdict: Sendable, Equatable {
        /// Sleep until this instant, then look again.
        case wait(until: ContinuousClock.Instant)
        /// A deadline passed: end the request.
        case expired(Expiry)
    }

    /// The longest deadline taken as given: about 31 years (`Duration.longestWait`). Longer ones are cut to it, so
    /// that no arithmetic on instants can overflow, whatever `Duration` a caller passes.
    package static let longest = Duration.longestWait

    /// The most URLSession's own timeout is set to, in seconds: about 11 days. FoundationNetworking
    /// multiplies the interval by 1,000 as an `Int`, so it must stay far from overflowing.
    static let longestBackstop: TimeInterval = 1_000_000

    /// The idle timeout, between zero and ``longest``.
    package let idle: Duration
    /// The total deadline, between zero and ``longest``.
    package let total: Duration
    /// When the request started.
    package let start: ContinuousClock.Instant

    /// Creates the deadlines of a request starting now.
    ///
    /// - Parameters:
    ///   - idle: The idle timeout; negative is zero.
    ///   - total: The total deadline; negative is zero.
    ///   - start: When the request starts.
    package init(idle: Duration, total: Duration, start: ContinuousClock.Instant = .now) {
        self.idle = idle.clampedAsWait
        self.total = total.clampedAsWait
        self.start = start
    }

    /// Creates the deadlines of `request` starting at `start`: its own timeouts, the client's defaults
    /// (``HTTPClient/Configuration/defaultTimeout``, ``HTTPClient/Configuration/defaultTotalTimeout``) where it has none.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - start: When they start; now by default (a transport passes the time on its ``DeadlineClock``).
    package init(of request: HTTPRequest, start: ContinuousClock.Instant = .now) {
        self.init(
            idle: request.timeout ?? HTTPClient.Configuration.defaultTimeout,
            total: request.totalTimeout ?? HTTPClient.Configuration.defaultTotalTimeout,
            start: start
        )
    }

    /// When the total deadline passes.
    package var end: ContinuousClock.Instant { start + total }

    /// Whether a deadline has passed at `now` for a request whose last byte moved at `lastActivity`, and
    /// otherwise when to look again. The total deadline wins when both have passed.
    ///
    /// The next look comes at the earlier deadline, and no later than a quarter of the idle timeout from `now`: a
    /// timer that looks that often sees a stall of the process (``lastActivity(_:afterLookDueAt:ranAt:)``) before it
    /// could take the stall for an idle connection.
    ///
    /// - Parameters:
    ///   - lastActivity: When the last byte was sent or received (the start before any).
    ///   - now: The current instant.
    package func verdict(lastActivity: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Verdict {
        if now >= end { return .expired(.total) }
        let idleEnd = lastActivity + idle
        if now >= idleEnd { return .expired(.idle) }
        return .wait(until: min(end, idleEnd, now + max(idle / 4, Self.shortestLookInterval)))
    }

    /// The shortest pause between two looks at a request's deadlines.
    static let shortestLookInterval = Duration.milliseconds(10)

    /// How late a look at the deadlines must run to say that the process stood still (stopped, swapped out, starved
    /// of every core) rather than that its timer ran a little late.
    package static let stallThreshold = Duration.milliseconds(250)

    /// When the idle timeout counts from, after a look due at `due` ran at `now`: `lastActivity`, moved on by the
    /// time the look was late when that was a stall (at least ``stallThreshold``), and never past `now`.
    ///
    /// While the process stood still, bytes that arrived waited in the socket, unseen, and the transfer's callbacks
    /// wait to run just as the look did: the time of the stall is not counted as idle, which would end a transfer
    /// whose server kept sending. The total deadline counts it: it is the caller's own limit on the whole exchange.
    ///
    /// - Parameters:
    ///   - lastActivity: When the last byte was seen to move.
    ///   - due: When the look was to run.
    ///   - now: When it ran.
    package static func lastActivity(
        _ lastActivity: ContinuousClock.Instant,
        afterLookDueAt due: ContinuousClock.Instant,
        ranAt now: ContinuousClock.Instant
    ) -> ContinuousClock.Instant {
        let late = due.duration(to: now)
        guard late >= stallThreshold, lastActivity < now else { return lastActivity }
        // The stall credited is its part after `lastActivity`: no more than the time since it.
        return min(lastActivity + late, now)
    }

    /// The error of a request ended by a deadline: ``Strata/StrataError/Code/network``, retryable, with
    /// `URLError(.timedOut)` as its underlying error and a message that names the deadline.
    ///
    /// - Parameters:
    ///   - expiry: Which deadline passed.
    ///   - request: The request, as `METHOD URL`.
    package func error(_ expiry: Expiry, request: String) -> StrataError {
        let reason =
            switch expiry {
            case .idle: "no data moved for \(Self.describe(idle)) (the idle timeout)"
            case .total: "it did not finish within \(Self.describe(total)) (the total deadline)"
            }
        return .transportFailure("\(request) timed out: \(reason)", URLError(.timedOut))
    }

    /// URLSession's own timeout for a request with these limits, in whole seconds: a minute past the
    /// longer of the two, at most ``longestBackstop``. It only matters if Strata's timer could not run.
    ///
    /// - Parameters:
    ///   - idle: The request's idle timeout.
    ///   - total: The request's total deadline.
    package static func backstop(idle: Duration?, total: Duration?) -> TimeInterval {
        let longer = max((idle ?? .zero).clampedAsWait, (total ?? .zero).clampedAsWait)
        return min(longer.timeInterval.rounded(.up) + 60, longestBackstop)
    }

    /// `250 ms`, `2 s` or `1.5 s`.
    private static func describe(_ duration: Duration) -> String {
        let milliseconds = Int(duration.timeInterval * 1_000)
        if milliseconds < 1_000 { return "\(milliseconds) ms" }
        if milliseconds % 1_000 == 0 { return "\(milliseconds / 1_000) s" }
        return "\(Double(milliseconds) / 1_000) s"
    }
}
