/// A plugin that repeats a failed call after a growing, randomised pause.
///
/// After a failure the plugin asks ``Configuration/isRetryable``; when it says yes and attempts remain,
/// it sleeps on its clock and calls again. The pause before retry *n* is drawn by ``Backoff``
/// (exponential, capped, with full jitter by default) unless the error suggests a delay
/// (``RetryAdvising/suggestedRetryDelay``: for an HTTP source, the response's `Retry-After`, found on the
/// error's cause), which is then waited exactly.
///
/// The default rule retries what ``StrataError/isRetryable`` marks — transport failures, and for HTTP 5xx,
/// 408 and 429 answers — and never *not found*, *not valid*, *unauthorized* or a cancellation. A task cancelled
/// during the pause stops at once with ``StrataError/Code/cancelled``.
///
/// ```swift
/// let api = UsersAPI(client).plugins([
///     RetryPlugin(configuration: .init(maxAttempts: 4, backoff: .init(initial: .milliseconds(200))))
/// ])
/// ```
public struct RetryPlugin: StrataPlugin {
    /// How many times, how long between and which errors.
    public struct Configuration: Sendable {
        /// The most calls made for one request, the first included; `1` never retries.
        public var maxAttempts: Int

        /// The pauses between attempts.
        public var backoff: Backoff

        /// Whether to wait what an error's ``RetryAdvising/suggestedRetryDelay`` asks (an HTTP `Retry-After`)
        /// instead of the backoff.
        public var honoursRetryAfter: Bool

        /// The longest suggested delay (`Retry-After`) the plugin waits; a longer one fails the call with the
        /// error instead. `nil` waits any, up to about 31 years.
        public var maxRetryAfter: Duration?

        /// The methods that are retried; all by default.
        public var methods: Set<PluginCall.Method>

        /// Decides whether an error is worth another attempt.
        public var isRetryable: @Sendable (any Error) -> Bool

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - maxAttempts: The most calls for one request, the first included.
        ///   - backoff: The pauses between attempts.
        ///   - honoursRetryAfter: Wait what ``RetryAdvising/suggestedRetryDelay`` asks when an error has it.
        ///   - maxRetryAfter: The longest suggested delay to wait; `nil` for no limit.
        ///   - methods: The methods to retry.
        ///   - isRetryable: The rule; ``RetryPlugin/defaultIsRetryable(_:)`` by default.
        public init(
            maxAttempts: Int = 3,
            backoff: Backoff = Backoff(),
            honoursRetryAfter: Bool = true,
            maxRetryAfter: Duration? = .seconds(60),
            methods: Set<PluginCall.Method> = Set(PluginCall.Method.allCases),
            isRetryable: @escaping @Sendable (any Error) -> Bool = RetryPlugin.defaultIsRetryable
        ) {
            self.maxAttempts = maxAttempts
            self.backoff = backoff
            self.honoursRetryAfter = honoursRetryAfter
            self.maxRetryAfter = maxRetryAfter
            self.methods = methods
            self.isRetryable = isRetryable
        }
    }

    /// The plugin's settings.
    public let configuration: Configuration

    private let clock: any WallClock
    private let random: SharedRandom

    /// Creates the plugin.
    ///
    /// - Parameters:
    ///   - configuration: Attempts, backoff and the retry rule.
    ///   - clock: What the pauses sleep on; `ManualClock` in tests.
    ///   - random: The source of jitter; a ``SeededRandomNumberGenerator`` makes pauses repeatable.
    public init(
        configuration: Configuration = Configuration(),
        clock: any WallClock = SystemClock(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.configuration = configuration
        self.clock = clock
        self.random = SharedRandom(random)
    }

    /// The default retry rule: a ``StrataError`` marked ``StrataError/isRetryable``, except *not found*,
    /// *not valid*, *unauthorized* and *cancelled*; never any other error.
    ///
    /// - Parameter error: The error of the last attempt.
    public static func defaultIsRetryable(_ error: any Error) -> Bool {
        guard let error = error as? StrataError, error.isRetryable else { return false }
        return error.code != .notFound && error.code != .notValid && error.code != .unauthorized
            && error.code != .cancelled
    }

    /// Calls `next`, and again after each retryable failure while attempts remain.
    public func intercept<R: Sendable>(
        _ call: PluginCall,
        next: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        guard configuration.maxAttempts > 1, configuration.methods.contains(call.method) else {
            return try await next()
        }
        let stopwatch = PluginStopwatch(clock: clock)
        var attempt = 1
        // Whether an earlier attempt may have taken effect: a write that timed out and was then refused on retry (a
        // conflict with the version it wrote itself) may still have landed.
        var mayHaveTakenEffect = false
        while true {
            do {
                return try await next()
            } catch {
                mayHaveTakenEffect = mayHaveTakenEffect || (error as? StrataError)?.mayHaveTakenEffect == true
                guard attempt < configuration.maxAttempts, !Task.isCancelled, configuration.isRetryable(error),
                    let pause = pause(after: error, attempt: attempt)
                else {
                    throw Self.finalError(
                        error,
                        attempts: attempt,
                        over: stopwatch.elapsed(),
                        mayHaveTakenEffect: mayHaveTakenEffect
                    )
                }
                do {
                    try await clock.sleep(for: pause)
                } catch {
                    throw StrataError(
                        .cancelled,
                        "Cancelled while waiting to retry \(call.method)",
                        underlying: error,
                        mayHaveTakenEffect: mayHaveTakenEffect
                    )
                }
                attempt += 1
            }
        }
    }

    /// The last attempt's error; when there was more than one attempt and it is a ``StrataError``, its message
    /// ends with how many attempts were made over how long, such as `(after 3 attempts over 1.204 s)`, and it says
    /// ``StrataError/mayHaveTakenEffect`` when any attempt's error did.
    static func finalError(
        _ error: any Error,
        attempts: Int,
        over elapsed: Duration,
        mayHaveTakenEffect: Bool = false
    ) -> any Error {
        guard attempts > 1, var error = error as? StrataError else { return error }
        error.message += " (after \(attempts) attempts over \(elapsed.readableText))"
        if mayHaveTakenEffect { error.mayHaveTakenEffect = true }
        return error
    }

    /// The pause before the next attempt, or `nil` when the source asked for a longer one than allowed; a suggested
    /// one is taken as a wait (`clampedAsWait`), so that no sleep overflows.
    private func pause(after error: any Error, attempt: Int) -> Duration? {
        if configuration.honoursRetryAfter, let delay = (error as? any RetryAdvising)?.suggestedRetryDelay {
            if let limit = configuration.maxRetryAfter, delay > limit { return nil }
            return delay.clampedAsWait
        }
        return configuration.backoff.delay(beforeRetry: attempt, unitRandom: random.unitInterval())
    }
}
