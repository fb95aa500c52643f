#if Postgres
    import PostgresNIO
    import Strata

    /// The longest a call to PostgreSQL may take: a race between the call and a timer, so that no caller waits on a
    /// server that is down or a connection that died without closing.
    ///
    /// postgres-nio's pool queues a call while it cannot connect, and fails the queue only after 60 seconds of
    /// failed attempts; a statement already sent waits for its answer however long that takes, and a statement sent on
    /// a connection as it closes may never be answered at all. When the timer wins, or the caller is cancelled, the
    /// call ends at once: its task is cancelled (a call waiting for a connection leaves the pool's queue, and a
    /// statement in flight has its connection closed, ``PostgresConnection/closingOnCancel(_:)``), and the caller waits
    /// for it to end at most ``causeWait`` more (so that a call that ends when cancelled, as every call should, is over
    /// before its caller goes on, and its error is the timeout's cause), so nothing postgres-nio leaves unanswered can
    /// hold the caller.
    struct PostgresDeadline: Sendable {
        /// What a call that did not finish within the limit throws.
        struct Expired: Error {
            /// The limit that passed.
            let limit: Duration
            /// What the call threw once cancelled (postgres-nio's error), when it ended within ``causeWait``.
            let cause: (any Error)?
        }

        /// The longest a call that timed out is waited for once cancelled, for its error.
        static let causeWait = Duration.seconds(1)

        /// The longest a call whose connection was closed (its caller gave up on it) waits for the close to complete
        /// before it gives the connection back (``PostgresConnection/closingOnCancel(_:)``): well within ``causeWait``,
        /// so that the call still ends before its caller goes on.
        static let closeWait = TimeAmount.milliseconds(250)

        /// The limit, between zero and about 31 years (so that no arithmetic on instants can overflow).
        let limit: Duration

        init(_ limit: Duration) {
            self.limit = limit.clampedAsWait
        }

        /// Runs `body`, or throws ``Expired`` when it has not finished within ``limit``. A result `body` returns as the
        /// timer fires wins over the timer; a cancelled caller cancels `body` and ends as `body` does, or with
        /// `CancellationError` after ``causeWait``.
        func run<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
            try await run(untilAcknowledged: { _ in try await body() })
        }

        /// Runs `body`, or throws ``Expired`` when it has neither finished nor called its `acknowledge` within
        /// ``limit``: once acknowledged (`acknowledge()` returned `true`), `body` runs for as long as it takes.
        ///
        /// `acknowledge()` returns `false` when the timer won first: `body` is being cancelled and should stop. A
        /// `body` the caller gave up on (the timer won, or the caller was cancelled) is cancelled and waited for at most
        /// ``causeWait``; one that does not end by then is left to end on its own.
        func run<Result: Sendable>(
            untilAcknowledged body: @escaping @Sendable (_ acknowledge: @escaping Acknowledge) async throws -> Result
        ) async throws -> Result {
            let phase = Locked(Phase.waiting)
            let acknowledge: Acknowledge = {
                phase.withLock { phase in
                    if phase == .waiting { phase = .acknowledged }
                    return phase == .acknowledged
                }
            }
            let race = PostgresCallRace<Result>()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    race.begin(continuation) {
                        let call = Task {
                            do {
                                race.end(with: .success(try await body(acknowledge)))
                            } catch {
                                race.end(with: .failure(error))
                            }
                        }
                        let timer = Task { [limit] in
                            // Cancelled once the race is over.
                            guard (try? await Task.sleep(for: limit)) != nil else { return }
                            let expires = phase.withLock { phase in
                                if phase == .waiting { phase = .expired }
                                return phase == .expired
                            }
                            guard expires else { return }
                            race.expire(limit: limit)
                            // The call's own end, cancelled, ends the race first when it comes in time.
                            try? await Task.sleep(for: Self.causeWait)
                            race.end(with: .failure(Expired(limit: limit, cause: nil)))
                        }
                        return (call, timer)
                    }
                }
            } onCancel: {
                race.cancelByCaller()
            }
        }

        /// What a body run by ``run(untilAcknowledged:)`` calls once the call is past the part the deadline bounds:
        /// `true` when it was in time, `false` when the timer won.
        typealias Acknowledge = @Sendable () -> Bool

        /// Where a call run by ``run(untilAcknowledged:)`` stands: the timer and the acknowledgement each move it from
        /// `waiting` once, whichever comes first.
        private enum Phase: Sendable {
            case waiting
            case acknowledged
            case expired
        }
    }

    /// The end of a ``PostgresDeadline`` call: the first of the call's result, the timer and the caller's cancellation
    /// resumes the caller, and the tasks still running are cancelled.
    private final class PostgresCallRace<Result: Sendable>: Sendable {
        private struct State {
            var caller: CheckedContinuation<Result, any Error>?
            var call: Task<Void, Never>?
            var timer: Task<Void, Never>?
            /// Whether the race ended (even before it began: the caller was cancelled first).
            var isOver = false
            /// The limit that passed, once the timer won: the call's error then ends the race as its cause.
            var expiredLimit: Duration?
            /// Whether the caller was cancelled: the call's own end then ends the race as it is.
            var isCancelledByCaller = false
        }

        private let state = Locked(State())

        /// Starts the race for `caller`: `start` makes the call's and the timer's tasks. A caller cancelled before the
        /// race began is resumed at once and `start` is not run.
        func begin(
            _ caller: CheckedContinuation<Result, any Error>,
            start: () -> (call: Task<Void, Never>, timer: Task<Void, Never>)
        ) {
            let wasOver = state.withLock { state in
                guard !state.isOver else { return true }
                state.caller = caller
                return false
            }
            guard !wasOver else { return caller.resume(throwing: CancellationError()) }
            let (call, timer) = start()
            let (isOver, isGivenUp) = state.withLock { state in
                state.call = call
                state.timer = timer
                return (state.isOver, state.expiredLimit != nil || state.isCancelledByCaller)
            }
            if isOver {
                call.cancel()
                timer.cancel()
            } else if isGivenUp {
                // The timer or the caller gave up before the call's task was known.
                call.cancel()
            }
        }

        /// The caller was cancelled: cancels the call and waits for its end at most ``PostgresDeadline/causeWait``. A
        /// caller cancelled before the race began ends it at once.
        func cancelByCaller() {
            let call = state.withLock { state -> Task<Void, Never>?? in
                guard !state.isOver else { return nil }
                guard state.caller != nil else {
                    state.isOver = true
                    return nil
                }
                state.isCancelledByCaller = true
                return .some(state.call)
            }
            guard let call else { return }
            call?.cancel()
            Task {
                try? await Task.sleep(for: PostgresDeadline.causeWait)
                self.end(with: .failure(CancellationError()))
            }
        }

        /// The timer won: cancels the call, whose error, if it comes, ends the race as the timeout's cause.
        func expire(limit: Duration) {
            let call = state.withLock { state in
                state.expiredLimit = limit
                return state.call
            }
            call?.cancel()
        }

        /// Ends the race with `outcome` unless it already ended: resumes the caller and cancels the tasks. A failure
        /// after the timer won ends it as ``PostgresDeadline/Expired``, with the failure as its cause, unless the caller
        /// was cancelled.
        func end(with outcome: Swift.Result<Result, any Error>) {
            let ending = state.withLock {
                state -> (CheckedContinuation<Result, any Error>?, [Task<Void, Never>?], Duration?)? in
                guard !state.isOver else { return nil }
                state.isOver = true
                defer { state.caller = nil }
                return (state.caller, [state.call, state.timer], state.isCancelledByCaller ? nil : state.expiredLimit)
            }
            guard let (caller, tasks, expiredLimit) = ending else { return }
            tasks.forEach { $0?.cancel() }
            switch (outcome, expiredLimit) {
            case (.failure(let error), let limit?) where !(error is PostgresDeadline.Expired):
                caller?.resume(throwing: PostgresDeadline.Expired(limit: limit, cause: error))
            default:
                caller?.resume(with: outcome)
            }
        }
    }

    extension PostgresConnection {
        /// Runs `body` (a statement on this connection), closing the connection if the task is cancelled meanwhile:
        /// postgres-nio does not stop waiting for a statement's answer when its task is cancelled, but it fails the
        /// statement of a closed connection at once. The pool replaces the connection. A task cancelled before it
        /// begins sends nothing and leaves the connection alone (its caller may have given it back to the pool).
        ///
        /// A connection closed so is closed before this returns, or ``PostgresDeadline/closeWait`` has passed: the pool
        /// hears of a close when it completes, so a connection given back while still closing would be handed to the
        /// next call, which would fail with `clientClosedConnection`. A plain connection closes at once; one over TLS
        /// first waits for the server's `close_notify`, up to NIO's `shutdownTimeout` (5 s by default), which a busy
        /// or dead server never sends: such a connection goes back to the pool while it closes, rather than hold its
        /// caller.
        func closingOnCancel<Result>(_ body: () async throws -> Result) async throws -> Result {
            try Task.checkCancellation()
            let isClosing = Locked(false)
            do {
                let result = try await withTaskCancellationHandler(operation: body) {
                    isClosing.withLock { $0 = true }
                    close().whenComplete { _ in }
                }
                await untilClosed(if: isClosing)
                return result
            } catch {
                await untilClosed(if: isClosing)
                throw error
            }
        }

        /// Waits for the close ``closingOnCancel(_:)`` began, if it began one, at most ``PostgresDeadline/closeWait``.
        /// (The task is cancelled: the wait is NIO's, which a cancelled task does not end.)
        private func untilClosed(if isClosing: Locked<Bool>) async {
            guard isClosing.withLock({ $0 }) else { return }
            let closedOrWaited = eventLoop.makePromise(of: Void.self)
            closeFuture.whenComplete { _ in closedOrWaited.succeed() }
            let timer = eventLoop.scheduleTask(in: PostgresDeadline.closeWait) { closedOrWaited.succeed() }
            try? await closedOrWaited.futureResult.get()
            timer.cancel()
        }

        /// Runs `LISTEN` on `channel`, then `consume` with its notifications for as long as `consume` runs: the server
        /// must acknowledge `LISTEN` within `deadline`, or the connection is closed and the call throws
        /// ``PostgresDeadline/Expired``. The listening itself has no deadline. A cancelled task closes the connection.
        func listen(
            on channel: String,
            acknowledgedWithin deadline: PostgresDeadline,
            consume: @escaping @Sendable (PostgresNotificationSequence) async throws -> Void
        ) async throws {
            try await deadline.run(untilAcknowledged: { acknowledge in
                try await self.closingOnCancel {
                    try await self.listen(on: channel) { notifications in
                        // The timer won as the acknowledgement came: the connection is being closed.
                        guard acknowledge() else { throw CancellationError() }
                        try await consume(notifications)
                    }
                }
            })
        }

        /// Runs `SELECT 1` within `deadline`; throws when the connection does not answer in time (it is then closed).
        func ping(within deadline: PostgresDeadline) async throws {
            try await perform("SELECT 1", within: deadline)
        }

        /// Sends `payload` on `channel` (`pg_notify`) within `deadline`; throws when the connection does not answer in
        /// time (it is then closed).
        func notify(_ channel: String, _ payload: String, within deadline: PostgresDeadline) async throws {
            var binds = PostgresBindings()
            binds.append(channel)
            binds.append(payload)
            try await perform(PostgresQuery(unsafeSQL: "SELECT pg_notify($1, $2)", binds: binds), within: deadline)
        }

        /// Runs `query` within `deadline`, closing the connection when it does not answer in time.
        private func perform(_ query: PostgresQuery, within deadline: PostgresDeadline) async throws {
            try await deadline.run {
                try await self.closingOnCancel {
                    _ = try await self.query(query, logger: PostgresDeadline.logger)
                }
            }
        }
    }

    extension PostgresDeadline {
        /// The logger of the statements the source runs on a connection it holds (postgres-nio logs them at `debug`).
        static let logger = Logger(label: "strata.postgres")
    }
#endif
