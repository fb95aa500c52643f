/// A plugin that slows calls down and makes some of them fail, to test how an app copes (Harmony's
/// "debug data source").
///
/// Before each call of the chosen methods it sleeps the configured delay on its clock, then, with
/// probability ``Configuration/errorRate``, throws ``Configuration/error`` instead of calling the source.
/// With a seed the sequence of delays and failures is the same on every run.
///
/// ```swift
/// let flaky = UsersAPI(client).plugins([
///     FaultInjectionPlugin(configuration: .init(delay: .random(.zero ... .seconds(2)), errorRate: 0.2), seed: 7)
/// ])
/// ```
public struct FaultInjectionPlugin: StrataPlugin {
    /// How long each call is held back.
    public enum Delay: Sendable, Hashable {
        /// No delay.
        case none
        /// The same delay before every call.
        case fixed(Duration)
        /// A delay drawn uniformly from the range before every call.
        case random(ClosedRange<Duration>)
    }

    /// What the plugin injects.
    public struct Configuration: Sendable {
        /// The delay before each call.
        public var delay: Delay

        /// The share of calls that fail, from `0` (none) to `1` (all).
        public var errorRate: Double

        /// The error a failing call throws.
        public var error: StrataError

        /// The methods faults are injected into; all by default.
        public var methods: Set<PluginCall.Method>

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - delay: The delay before each call.
        ///   - errorRate: The share of calls that fail, clamped to `0...1`.
        ///   - error: What a failing call throws; a retryable ``StrataError/Code/network`` error by default.
        ///   - methods: The methods affected.
        public init(
            delay: Delay = .none,
            errorRate: Double = 0,
            error: StrataError = StrataError(.network, "Injected fault"),
            methods: Set<PluginCall.Method> = Set(PluginCall.Method.allCases)
        ) {
            self.delay = delay
            self.errorRate = min(max(errorRate, 0), 1)
            self.error = error
            self.methods = methods
        }
    }

    /// What the plugin injects.
    public let configuration: Configuration

    private let clock: any WallClock
    private let random: SharedRandom

    /// Creates the plugin.
    ///
    /// - Parameters:
    ///   - configuration: Delay, error rate and error.
    ///   - seed: Fixes the sequence of random delays and failures; `nil` draws from the system.
    ///   - clock: What the delays sleep on; `ManualClock` in tests.
    public init(configuration: Configuration, seed: UInt64? = nil, clock: any WallClock = SystemClock()) {
        self.configuration = configuration
        self.clock = clock
        if let seed {
            random = SharedRandom(SeededRandomNumberGenerator(seed: seed))
        } else {
            random = SharedRandom(SystemRandomNumberGenerator())
        }
    }

    /// Delays the call, then fails it or runs it.
    public func intercept<R: Sendable>(
        _ call: PluginCall,
        next: @escaping @Sendable () async throws -> R
    ) async throws -> R {
        guard configuration.methods.contains(call.method) else { return try await next() }
        // Both draws happen before any suspension, so the sequence does not depend on timing.
        let delay = drawDelay()
        let fails = configuration.errorRate >= 1 || random.unitInterval() < configuration.errorRate
        if delay > .zero {
            do {
                try await clock.sleep(for: delay)
            } catch {
                throw StrataError(.cancelled, "Cancelled during an injected delay", underlying: error)
            }
        }
        if fails { throw configuration.error }
        return try await next()
    }

    /// The delay before the next call, taken as a wait (`clampedAsWait`): whatever the configured
    /// durations, neither the draw nor the sleep overflows.
    private func drawDelay() -> Duration {
        switch configuration.delay {
        case .none: return .zero
        case .fixed(let delay): return delay.clampedAsWait
        case .random(let range):
            let lower = Double(range.lowerBound.nanoseconds)
            let span = Double(range.upperBound.nanoseconds) - lower
            return Duration(saturatingNanoseconds: (lower + span * random.unitInterval()).rounded(.down)).clampedAsWait
        }
    }
}
