#if Postgres
    import PostgresNIO
    import Strata
    import _ConnectionPoolModule

    /// How PostgreSQL's failures become ``Strata/StrataError`` codes; PostgreSQL's own error stays the underlying one.
    enum PostgresErrors {
        /// The SQLSTATE of a server error, such as `23505`.
        static func sqlState(of error: any Error) -> String? {
            guard let error = error as? PSQLError, error.code == .server else { return nil }
            return error.serverInfo?[.sqlState]
        }

        /// Whether the table (or its sequence) is missing: `42P01`.
        static func isUndefinedTable(_ error: any Error) -> Bool { sqlState(of: error) == "42P01" }

        /// Whether `error` is what a call cancelled while it waited for a connection of the pool throws: nothing of
        /// it was sent.
        static func isWaitForAConnection(_ error: (any Error)?) -> Bool {
            (error as? ConnectionPoolError) == .requestCancelled
        }

        /// Maps any failure of a statement to a ``Strata/StrataError``, keeping one as it is.
        ///
        /// - Parameters:
        ///   - error: What the client threw.
        ///   - action: What the source was doing, for the message ("read", "write", "delete").
        ///   - writes: Whether the call writes: a write whose connection failed (but for a server's error, which ends
        ///     the statement undone) may have been sent and committed before it was lost, so its error says it may
        ///     have taken effect (``Strata/StrataError/mayHaveTakenEffect``).
        static func map(_ error: any Error, _ action: String, writes: Bool = false) -> StrataError {
            if let error = error as? StrataError { return error }
            if error is CancellationError {
                return StrataError(.cancelled, "The \(action) was cancelled", underlying: error)
            }
            if error is PostgresDecodingError {
                return StrataError(.dataSerialization, "A row of the \(action) did not decode", underlying: error)
            }
            // A client whose `run()` ended fails every call so (postgres-nio hands a lease's failure over unmapped): no
            // retry can succeed, nor a replay, until the app runs a client again.
            if (error as? ConnectionPoolError) == .poolShutdown || (error as? PSQLError)?.code == .poolClosed {
                return StrataError(
                    .invalidArgument,
                    "The \(action) failed: the PostgresClient is shut down (its run() ended)",
                    underlying: error,
                    isRetryable: false
                )
            }
            if (error as? ConnectionPoolError) == .requestCancelled {
                return StrataError(.cancelled, "The \(action) was cancelled", underlying: error)
            }
            guard let psql = error as? PSQLError else {
                // The pool's own failures (its circuit breaker, after the server was unreachable for a while) come
                // before any connection: the write was never sent.
                return StrataError(
                    .network,
                    "The \(action) failed: \(error)",
                    underlying: error,
                    mayHaveTakenEffect: writes && !(error is ConnectionPoolError)
                )
            }
            guard psql.code == .server, let state = psql.serverInfo?[.sqlState] else {
                if psql.code == .queryCancelled {
                    return StrataError(.cancelled, "The \(action) was cancelled", underlying: psql)
                }
                // The connection was lost, refused, closed or never made: the transport failed, maybe after the
                // server had the statement (it commits a write whether or not its answer arrives).
                return StrataError(
                    .network,
                    "The \(action) failed: PostgreSQL connection: \(psql.code)",
                    underlying: psql,
                    mayHaveTakenEffect: writes
                )
            }
            let message = "The \(action) failed: PostgreSQL \(state): \(psql.serverInfo?[.message] ?? "")"
            let queueFull = isNotifyQueueFull(state, psql.serverInfo)
            return StrataError(
                queueFull ? .unexpectedResponse : code(ofSQLState: state),
                message,
                underlying: psql,
                isRetryable: queueFull || isTransient(state) ? true : nil
            )
        }

        /// Whether a server error is the NOTIFY queue found full at commit (`54000`, raised in the server's `async.c`,
        /// "too many notifications in the NOTIFY queue"): every write fires the notify trigger, and the queue, which the
        /// whole cluster shares, empties once the listener that holds it back (one idle in a transaction) moves on. A
        /// write may be repeated then; nothing about it was too large.
        static func isNotifyQueueFull(_ state: String, _ info: PSQLError.ServerInfo?) -> Bool {
            guard state == "54000", let info else { return false }
            return info[.file] == "async.c" || info[.message]?.contains("NOTIFY queue") == true
        }

        /// Whether a SQLSTATE says the transaction may simply be repeated: serialization_failure (`40001`, under
        /// a serializable default isolation) and deadlock_detected (`40P01`, two writes of one row set in opposite
        /// orders), neither a conflict with another writer's copy (a conflict would go to an outbox's resolver, whose
        /// default drops the queued write); read_only_sql_transaction (`25006`: a write that reached a primary demoted
        /// by a failover, through a name that still points at it); insufficient resources (class `53`: a full disk, no
        /// memory, too many connections; not `53400`, a configured limit); lock_not_available (`55P03`, under a
        /// `lock_timeout`); and io_error (`58030`). Each passes as a server's `503` does.
        static func isTransient(_ state: String) -> Bool {
            switch state {
            case "40001", "40P01", "25006", "55P03", "58030": true
            case "53400": false
            default: state.hasPrefix("53")
            }
        }

        /// The code of a SQLSTATE: conflicts, timeouts and lost connections, bad data, and anything else.
        static func code(ofSQLState state: String) -> StrataError.Code {
            switch state {
            // unique_violation
            case "23505": .conflict
            // duplicate_table: a table name whose version sequence another table has, or the reverse, or a table of
            // the name whose columns are not Strata's
            case "42P07": .invalidArgument
            // program_limit_exceeded: a key too long for the index of the keys (past a raised maximumKeySize); a full
            // NOTIFY queue is not this (isNotifyQueueFull)
            case "54000": .tooLarge
            // query_canceled (a statement timeout), admin_shutdown, crash_shutdown, cannot_connect_now;
            // read_only_sql_transaction: the primary reached is one no more (a failover under way)
            case "57014", "57P01", "57P02", "57P03", "25006": .network
            case _ where state.hasPrefix("08"): .network
            // data_exception: a value PostgreSQL cannot hold (a `\u0000` in jsonb, bytes that are not UTF-8)
            case _ where state.hasPrefix("22"): .dataSerialization
            default: .unexpectedResponse
            }
        }
    }
#endif
