import Foundation
import Strata

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransportDelegate {
    /// The task that enforces every running transfer's deadlines: one per delegate, however many transfers run.
    ///
    /// It sleeps until the earliest deadline of the transfers it saw, ends those whose deadline has passed, and
    /// sleeps again until the next one; it ends when no transfer is left. A transfer whose first deadline comes
    /// before the watchdog's next look starts a new watchdog in its place. So a request costs no task and no timer
    /// of its own: with the same timeouts, a later request's deadlines are later, and the running watchdog covers
    /// it.
    struct Watchdog: Sendable {
        /// Tells a replaced watchdog from the current one.
        var generation: UInt64
        /// When it looks next.
        var wakesAt: ContinuousClock.Instant
        /// The task, once started; `nil` for the moment between its decision and its start.
        var task: Task<Void, Never>?
    }

    /// What one look of the watchdog found.
    private struct Look {
        var expired: [(identifier: Int, expiry: RequestDeadlines.Expiry, task: URLSessionTask?)] = []
        var next: ContinuousClock.Instant?
    }

    /// Makes sure the watchdog looks at a registered transfer in time; whether the transfer is still registered
    /// (a running watchdog may have ended it already: its task must then not be resumed).
    func watchDeadlines(of identifier: Int) -> Bool {
        let now = ContinuousClock.now
        let decision = state.withLock { state -> (isRegistered: Bool, start: (UInt64, Task<Void, Never>?)?) in
            guard let transfer = state.transfers[identifier] else { return (false, nil) }
            let firstLook =
                switch transfer.exchange.deadlines.verdict(lastActivity: transfer.lastActivity, now: now) {
                case .wait(let until): until
                case .expired: now
                }
            if let watchdog = state.watchdog, watchdog.wakesAt <= firstLook { return (true, nil) }
            let generation = (state.watchdog?.generation ?? 0) &+ 1
            let replaced = state.watchdog?.task
            state.watchdog = Watchdog(generation: generation, wakesAt: firstLook, task: nil)
            return (true, (generation, replaced))
        }
        guard let (generation, replaced) = decision.start else { return decision.isRegistered }
        let started = (generation: generation, replaced: replaced)
        started.replaced?.cancel()
        // Weak: a watchdog asleep keeps no delegate (and no session) alive.
        let watchdog = Task { [weak self] in
            while let next = self?.lookAndExpire(generation: started.generation) {
                do {
                    try await Task.sleep(until: next, tolerance: .milliseconds(1), clock: .continuous)
                } catch {
                    return
                }
            }
        }
        let isCurrent = state.withLock { state in
            guard state.watchdog?.generation == started.generation else { return false }
            state.watchdog?.task = watchdog
            return true
        }
        if !isCurrent { watchdog.cancel() }
        return true
    }

    /// One look of the watchdog: ends the transfers whose deadline has passed, and returns when to look next;
    /// `nil` when it was replaced or no transfer is left.
    private func lookAndExpire(generation: UInt64) -> ContinuousClock.Instant? {
        while true {
            guard let look = look(generation: generation, now: .now) else { return nil }
            for expired in look.expired {
                expire(expired.identifier, expired.expiry)
                if let task = expired.task { stop(task) }
            }
            if let next = look.next { return next }
            if look.expired.isEmpty { return nil }
        }
    }

    /// The transfers whose deadline has passed and the next deadline of the others; `nil` when `generation` is
    /// not the current watchdog's. With no transfer left, the watchdog is done, in the same critical section that
    /// a new transfer checks, so one either sees it running or starts another.
    ///
    /// A look that runs well after it was due found the process stood still: that time is not counted as idle
    /// (``RequestDeadlines/lastActivity(_:afterLookDueAt:ranAt:)``).
    private func look(generation: UInt64, now: ContinuousClock.Instant) -> Look? {
        state.withLock { state in
            guard let due = state.watchdog?.wakesAt, state.watchdog?.generation == generation else { return nil }
            var look = Look()
            for index in state.transfers.indices {
                let (identifier, transfer) = state.transfers[index]
                let lastActivity = RequestDeadlines.lastActivity(transfer.lastActivity, afterLookDueAt: due, ranAt: now)
                state.transfers.values[index].lastActivity = lastActivity
                switch transfer.exchange.deadlines.verdict(lastActivity: lastActivity, now: now) {
                case .wait(let until): look.next = min(look.next ?? until, until)
                case .expired(let expiry): look.expired.append((identifier, expiry, transfer.task))
                }
            }
            if let next = look.next {
                state.watchdog?.wakesAt = next
            } else if look.expired.isEmpty {
                state.watchdog = nil
            } else {
                state.watchdog?.wakesAt = now
            }
            return look
        }
    }
}
