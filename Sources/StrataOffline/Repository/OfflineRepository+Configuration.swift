import Foundation
import Strata

extension OfflineRepository {
    /// How an ``OfflineRepository`` decides what to queue, how it replays and how it settles conflicts.
    public struct Configuration: Sendable {
        /// Whether a main failure after the cache was written queues the write (`true`) or is thrown (`false`).
        ///
        /// The default queues what ``Strata/RetryPlugin/defaultIsRetryable(_:)`` retries: transport failures, timeouts,
        /// HTTP 5xx, 408 and 429. Anything else (a 400, a 401, a conflict) is thrown, and nothing is queued.
        public var isRetryable: @Sendable (any Error) -> Bool

        /// Which main failures mean main could not be reached (``PendingWrite/Failure/unreachable``), rather than
        /// main answering with an error (``PendingWrite/Failure/answered``).
        ///
        /// A call main answers replays the writes that failed unreachable at once, ignoring their backoff: main is
        /// reachable again. A write main itself refused (HTTP 5xx, 429) waits for its backoff, so a server that
        /// answers reads but fails writes is not sent every queued write on every read. The default,
        /// ``defaultIsUnreachable(_:)``, takes ``Strata/StrataError/Code/network`` (transport failures, timeouts,
        /// refused connections).
        public var isUnreachable: @Sendable (any Error) -> Bool

        /// The pauses between replays of a write main keeps failing: the retry plugin's backoff (exponential,
        /// capped, full jitter). A `Retry-After` a failure carries lengthens the pause (never shortens it), up
        /// to the backoff's maximum.
        ///
        /// A replay never ends, so a pause is never nothing: an `initial` of zero or less is taken as the default's
        /// 1 s, and a `maximum` of zero or less (often meant as "no cap") as the default's 5 minutes — else every
        /// failed replay would start the next at once, as fast as main fails.
        public var backoff: RetryPlugin.Backoff

        /// ``backoff`` as replays use it: an `initial` or `maximum` of zero or less taken as the default's.
        var replayBackoff: RetryPlugin.Backoff {
            var backoff = backoff
            if backoff.initial <= .zero { backoff.initial = Self.defaultBackoff.initial }
            if backoff.maximum <= .zero { backoff.maximum = Self.defaultBackoff.maximum }
            return backoff
        }

        /// The default ``backoff``: 1 s doubling up to 5 minutes, full jitter.
        public static var defaultBackoff: RetryPlugin.Backoff {
            RetryPlugin.Backoff(initial: .seconds(1), maximum: .seconds(300))
        }

        /// Whether a queued write of a key replaces the queued writes of that key before it (last write wins),
        /// so main receives only the newest. Off by default: every write is replayed. A delete always replaces
        /// the queued writes of its key before it.
        public var coalescesWrites: Bool

        /// Decides replayed writes that main refused as conflicts; ``ConflictResolver/takeRemote`` by default.
        public var conflictResolver: ConflictResolver<Value>

        /// How many conflicts one write may have before it is set aside.
        public var maxConflicts: Int

        /// The query a replay sends to main for a key; ``Strata/KeyQuery`` by default. Main must answer it as
        /// it answered the query of the original write.
        public var query: @Sendable (String) -> any Query

        /// Whether a timer replays queued writes when their backoff ends. Without it, writes are replayed after
        /// a successful main call and by ``OfflineRepository/sync()``.
        public var replaysOnTimer: Bool

        /// Makes the encoder for queued values.
        public var makeEncoder: @Sendable () -> JSONEncoder

        /// Makes the decoder for queued values.
        public var makeDecoder: @Sendable () -> JSONDecoder

        /// What the timer sleeps on and dates come from; `ManualClock` in tests.
        public var clock: any WallClock

        /// The source of the backoff's jitter; a ``Strata/SeededRandomNumberGenerator`` makes pauses repeatable.
        public var random: any RandomNumberGenerator & Sendable

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - isRetryable: Which main failures queue the write.
        ///   - isUnreachable: Which main failures mean main could not be reached.
        ///   - backoff: The pauses between replays; 1 s doubling up to 5 min, full jitter, by default.
        ///   - coalescesWrites: Whether a queued write replaces the queued writes of its key.
        ///   - conflictResolver: Decides conflicts.
        ///   - maxConflicts: Conflicts one write may have before it is set aside.
        ///   - query: The query a replay sends for a key.
        ///   - replaysOnTimer: Whether a timer replays writes when their backoff ends.
        ///   - makeEncoder: Makes the encoder for queued values.
        ///   - makeDecoder: Makes the decoder for queued values.
        ///   - clock: The timer's clock.
        ///   - random: The source of jitter.
        public init(
            isRetryable: @escaping @Sendable (any Error) -> Bool = RetryPlugin.defaultIsRetryable,
            isUnreachable: @escaping @Sendable (any Error) -> Bool = Configuration.defaultIsUnreachable,
            backoff: RetryPlugin.Backoff = Configuration.defaultBackoff,
            coalescesWrites: Bool = false,
            conflictResolver: ConflictResolver<Value> = .takeRemote,
            maxConflicts: Int = 3,
            query: @escaping @Sendable (String) -> any Query = { KeyQuery($0) },
            replaysOnTimer: Bool = true,
            makeEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() },
            makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() },
            clock: any WallClock = SystemClock(),
            random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
        ) {
            self.isRetryable = isRetryable
            self.isUnreachable = isUnreachable
            self.backoff = backoff
            self.coalescesWrites = coalescesWrites
            self.conflictResolver = conflictResolver
            self.maxConflicts = maxConflicts
            self.query = query
            self.replaysOnTimer = replaysOnTimer
            self.makeEncoder = makeEncoder
            self.makeDecoder = makeDecoder
            self.clock = clock
            self.random = random
        }

        /// The default rule of ``isUnreachable``: a ``Strata/StrataError`` with the code
        /// ``Strata/StrataError/Code/network`` — no answer came from main. Any other error is an answer.
        ///
        /// - Parameter error: Main's failure.
        public static func defaultIsUnreachable(_ error: any Error) -> Bool {
            (error as? StrataError)?.code == .network
        }
    }
}
