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
    func sends(_ record: PendingWrite, now: Date) -> Bool {
        guard let notBefore = record.notBefore, notBefore > now else { return true }
        switch self {
        case .due: return false
        // A record written before failures were told apart (no kind) is sent, as it was then.
        case .mainAnswered: return record.lastFailure != .answered
        case .all: return true
        }
    }
}
