#if Postgres
    import PostgresNIO
    import Strata

    /// The longest a call to PostgreSQL may take: a race between the call and a timer, so that no caller waits on a
    /// server that is down or a connection that died without closing.
    ///
    /// postgres-nio's pool queues a call while it cannot connect, and fails the queue only after 60 seconds of
    /// failed attempts; a statement already sent waits for its answer however long that takes. When the timer wins,
    /// the call's task is cancelled: a call waiting for a connection leaves the pool's queue, and a statement in flight
    /// has its connection closed (``PostgresConnection/closingOnCancel(_:)``), so the call ends at once and no task
    /// outlives it.
    struct PostgresDeadline: Sendable {
        /// What a call that did not finish within the limit throws.
        struct Expired: Error {
            /// The limit that passed.
            let limit: Duration
            /// What the call threw once cancelled: postgres-nio's error.
            let cause: any Error
        }

        private enum Outcome<Result: Sendable>: Sendable {
            case finished(Result)
            case expired
            case timerStopped
        }

        /// The limit, between zero and about 31 years (so that no arithmetic on instants can overflow).
        let limit: Duration

        init(_ limit: Duration) {
            self.limit = limit.clampedAsWait
        }

        /// Runs `body`, or throws ``Expired`` when it has not finished within ``limit``. A result `body` returns as the
        /// timer fires wins over the timer; a cancelled caller cancels `body`.
        func run<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
            try await run(untilAcknowledged: { _ in try await body() })
        }

        /// Runs `body`, or throws ``Expired`` when it has neither finished nor called its `acknowledge` within
        /// ``limit``: once acknowledged (`acknowledge()` returned `true`), `body` runs for as long as it takes.
        ///
        /// `acknowledge()` returns `false` when the timer won first: `body` is being cancelled and should stop.
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
            return try await withThrowingTaskGroup(of: Outcome<Result>.self) { group in
                group.addTask { .finished(try await body(acknowledge)) }
                group.addTask { [limit] in
                    do {
                        try await Task.sleep(for: limit)
                    } catch {
                        return .timerStopped
                    }
                    let expires = phase.withLock { phase in
                        if phase == .waiting { phase = .expired }
                        return phase == .expired
                    }
                    return expires ? .expired : .timerStopped
                }
                var expired = false
                do {
                    while let outcome = try await group.next() {
                        switch outcome {
                        case .finished(let result):
                            group.cancelAll()
                            return result
                        case .expired:
                            expired = true
                            group.cancelAll()
                        case .timerStopped:
                            continue
                        }
                    }
                } catch {
                    group.cancelAll()
                    if expired { throw Expired(limit: limit, cause: error) }
                    throw error
                }
                // Not reached: `body` either finishes or throws.
                throw CancellationError()
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

    extension PostgresConnection {
        /// Runs `body` (a statement on this connection), closing the connection if the task is cancelled meanwhile:
        /// postgres-nio does not stop waiting for a statement's answer when its task is cancelled, but it fails the
        /// statement of a closed connection at once. The pool replaces the connection.
        func closingOnCancel<Result>(_ body: () async throws -> Result) async throws -> Result {
            try await withTaskCancellationHandler(operation: body) {
                close().whenComplete { _ in }
            }
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
