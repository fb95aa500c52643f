import Foundation
import Strata

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The watchdog that enforces every running transfer's deadlines: one dispatch timer per delegate, however many
/// transfers run, firing on ``URLSessionTransportDelegate/watchdogQueue``.
///
/// It looks at the earliest deadline of the transfers it saw, ends those whose deadline has passed, and is set again
/// for the next one; once no transfer is left it is not set again. A transfer whose first deadline comes before the
/// watchdog's next look sets it earlier. So a request costs no task and no timer of its own: with the same timeouts,
/// a later request's deadlines are later, and the next look covers it.
///
/// The timer and what it does run on a dispatch queue of its own, never on Swift's cooperative pool: before, the
/// watchdog was a task sleeping on the pool, and a process whose pool was busy (tasks that spin, or block in a
/// synchronous call) ended no request at its deadline until a thread of the pool was free (a request with a total
/// deadline of 1 s, answered at 2 s, came back 200 after 8 s).
extension URLSessionTransportDelegate {
    /// A transfer whose deadline a look of the watchdog found passed.
    private typealias Expired = (identifier: Int, expiry: RequestDeadlines.Expiry, task: URLSessionTask?)

    /// Makes sure the watchdog looks at a registered transfer in time; whether the transfer is still registered
    /// (the watchdog may have ended it already: its task must then not be resumed).
    func watchDeadlines(of identifier: Int) -> Bool {
        let now = self.now
        return state.withLock { state in
            guard let transfer = state.transfers[identifier] else { return false }
            let firstLook =
                switch transfer.exchange.deadlines.verdict(lastActivity: transfer.lastActivity, now: now) {
                case .wait(let until): until
                case .expired: now
                }
            if let wakesAt = state.watchdogWakesAt, wakesAt <= firstLook { return true }
            setWatchdog(&state, at: firstLook, now: now)
            return true
        }
    }

    /// Has the watchdog look at once: the clock the deadlines are read on was moved on (a test,
    /// ``DeadlineClock/advance(by:)``), and it looks as it would have when that much time had passed with the process
    /// running.
    func lookNow() {
        let now = self.now
        state.withLock { state in
            if state.watchdogWakesAt != nil { setWatchdog(&state, at: now, now: now) }
        }
    }

    /// Sets the watchdog to look at `instant` (at once when it has passed), making its timer at the first use; under
    /// the lock, so that of two settings the later one holds, and the instant the look is due is the one it was set
    /// for.
    private func setWatchdog(_ state: inout State, at instant: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        state.watchdogWakesAt = instant
        let timer =
            state.watchdogTimer
            ?? {
                let timer = DispatchSource.makeTimerSource(queue: watchdogQueue)
                // Weak: a timer set for later keeps no delegate (and no session) alive.
                timer.setEventHandler { [weak self] in self?.lookAndExpire() }
                timer.activate()
                return timer
            }()
        state.watchdogTimer = timer
        let wait = max(now.duration(to: instant), .zero)
        timer.schedule(deadline: .now() + .nanoseconds(Int(clamping: wait.nanoseconds)), leeway: .milliseconds(1))
    }

    /// One look of the watchdog, on its queue: ends the transfers whose deadline has passed (the watchdog is set
    /// again for the next deadline of the others, or, when it ended the last ones, to look again at once).
    private func lookAndExpire() {
        for expired in look(now: now) {
            expire(expired.identifier, expired.expiry)
            if let task = expired.task { stop(task) }
        }
    }

    /// The transfers whose deadline has passed, the watchdog set for the next deadline of the others. When only
    /// passed ones are left it is set to look again at once (a transfer registered meanwhile counts on it); with no
    /// transfer left, not set again, in the same critical section that a new transfer checks, so one either sees it
    /// set or sets it.
    ///
    /// A look that runs well after it was due found the process stood still: that time is not counted as idle
    /// (``RequestDeadlines/lastActivity(_:afterLookDueAt:ranAt:)``).
    private func look(now: ContinuousClock.Instant) -> [Expired] {
        state.withLock { state in
            // A timer that fired after the watchdog had nothing left to watch.
            guard let due = state.watchdogWakesAt else { return [] }
            var expired: [Expired] = []
            var next: ContinuousClock.Instant?
            for index in state.transfers.indices {
                let (identifier, transfer) = state.transfers[index]
                let lastActivity = RequestDeadlines.lastActivity(transfer.lastActivity, afterLookDueAt: due, ranAt: now)
                state.transfers.values[index].lastActivity = lastActivity
                switch transfer.exchange.deadlines.verdict(lastActivity: lastActivity, now: now) {
                case .wait(let until): next = min(next ?? until, until)
                case .expired(let expiry): expired.append((identifier, expiry, transfer.task))
                }
            }
            if let next {
                setWatchdog(&state, at: next, now: now)
            } else if !expired.isEmpty {
                setWatchdog(&state, at: now, now: now)
            } else {
                state.watchdogWakesAt = nil
            }
            return expired
        }
    }
}
