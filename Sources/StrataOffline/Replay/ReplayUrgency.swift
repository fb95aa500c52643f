import Foundation

/// Which queued writes a replay sends before their backoff ends.
enum ReplayUrgency: Int, Comparable, Sendable {
    /// Only writes that are due: the timer, a new write queued behind others.
    case due
    /// Also writes whose last failure was main being unreachable: main just answered a call, so it is reachable
    /// again. A write main refused itself (5xx, 429) keeps its backoff.
    case mainAnswered
    /// Every write: ``OfflineRepository/sync()``.
    case all

    static func < (lhs: ReplayUrgency, rhs: ReplayUrgency) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether a replay of this urgency sends `record` now.
    ///
    /// A record whose pause ends later than `longestPause` from now is sent by every replay: no backoff made that
    /// date (the clock was set back since, or another program wrote the file), and the timer, which never waits
    /// longer than the longest pause, would otherwise wake for it and find it not due, again and again, with every
    /// later write of its key queued behind it.
    ///
    /// - Parameters:
    ///   - record: The queued write.
    ///   - now: The clock's date.
    ///   - longestPause: The backoff's maximum.
    func sends(_ record: PendingWrite, now: Date, longestPause: Duration) -> Bool {
        guard let notBefore = record.notBefore, notBefore > now,
            notBefore <= now.addingTimeInterval(longestPause.timeInterval)
        else { return true }
        switch self {
        case .due: return false
        // A record written before failures were told apart (no kind) is sent, as it was then.
        case .mainAnswered: return record.lastFailure != .answered
        case .all: return true
        }
    }
}
