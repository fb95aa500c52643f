#if Postgres
    import PostgresNIO
    import Strata

    extension PostgresChangeFeed {
        /// Every ``PostgresChangeFeedConfiguration/heartbeat`` (on the configuration's clock), sends the feed a
        /// notification of its own on `channel` through the listening `connection`, and waits for it to come back
        /// within the source's call timeout (on that clock too): proof that notifications still arrive, not only that
        /// the connection answers.
        ///
        /// - Throws: ``PostgresFeedBroken`` when the notification did not come back in time (the feed then stops
        ///   vouching at once, and closes the connection, the close completed, so the feed listens again on another);
        ///   what the statement throws (the connection is gone, or did not answer within the call timeout).
        func heartbeat(_ connection: PostgresConnection, channel: String) async throws {
            while true {
                try await configuration.clock.sleep(for: configuration.heartbeatInterval)
                let token = UInt64.random(in: .min ... .max)
                let (echoes, heard) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                awaitEcho((token, heard))
                defer { forgetEcho(token) }
                try await connection.notify(channel, PostgresFeedPayload.text(ofHeartbeat: token), within: deadline)
                guard try await cameBack(echoes) else {
                    // Closed before the connection goes back to the pool, which hears of a close only once it
                    // completes: given back while closing, the connection would be handed to another call. The feed
                    // stops vouching first: it is deaf now, and the close may take seconds.
                    await stopListening(andClose: connection)
                    throw PostgresFeedBroken.heartbeatLost(after: deadline.limit)
                }
            }
        }

        /// Whether `echoes` yields before the call timeout passes on the configuration's clock.
        private func cameBack(_ echoes: AsyncStream<Void>) async throws -> Bool {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for await _ in echoes { return true }
                    return false
                }
                group.addTask { [configuration, deadline] in
                    try await configuration.clock.sleep(for: deadline.limit)
                    return false
                }
                defer { group.cancelAll() }
                return try await group.next() ?? false
            }
        }
    }

    /// Why a change feed stopped listening on a connection that still answers.
    struct PostgresFeedBroken: Error, CustomStringConvertible {
        private enum Reason {
            case heartbeatLost(Duration)
        }

        private let reason: Reason

        /// The feed's own notification did not come back within `limit`: the connection answers, but its `LISTEN`
        /// hears nothing.
        static func heartbeatLost(after limit: Duration) -> Self { Self(reason: .heartbeatLost(limit)) }

        /// What went wrong, for the logs.
        var description: String {
            switch reason {
            case .heartbeatLost(let limit):
                "The change feed's heartbeat notification did not come back within \(limit): LISTEN hears nothing"
            }
        }
    }
#endif
