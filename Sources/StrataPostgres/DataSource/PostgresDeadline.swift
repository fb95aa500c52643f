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
            try await withThrowingTaskGroup(of: Outcome<Result>.self) { group in
                group.addTask { .finished(try await body()) }
                group.addTask { [limit] in
                    do {
                        try await Task.sleep(for: limit)
                        return .expired
                    } catch {
                        return .timerStopped
                    }
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

        /// Runs `SELECT 1` within `deadline`; throws when the connection does not answer in time (it is then closed).
        func ping(within deadline: PostgresDeadline) async throws {
            try await deadline.run {
                try await self.closingOnCancel {
                    _ = try await self.query("SELECT 1", logger: PostgresDeadline.logger)
                }
            }
        }
    }

    extension PostgresDeadline {
        /// The logger of the statements the source runs on a connection it holds (postgres-nio logs them at `debug`).
        static let logger = Logger(label: "strata.postgres")
    }
#endif
