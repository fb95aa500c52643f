#if AsyncHTTPClient
    import Strata

    /// When a byte of one request last moved, either way: what its idle timeout counts from.
    final class TransferActivity: Sendable {
        private let last: Locked<ContinuousClock.Instant>

        /// Creates the activity of a request that starts at `start`.
        init(start: ContinuousClock.Instant) {
            last = Locked(start)
        }

        /// When a byte last moved (the start before any).
        var lastActivity: ContinuousClock.Instant { last.withLock { $0 } }

        /// Records that bytes moved now.
        func touch() {
            let now = ContinuousClock.now
            last.withLock { $0 = max($0, now) }
        }
    }
#endif
