import Foundation

extension RetryPlugin {
    /// Exponential backoff with a cap and optional full jitter.
    ///
    /// The ceiling before retry *n* (1 for the first retry) is `min(maximum, initial × multiplier^(n−1))`.
    /// With ``Jitter/full`` the pause is drawn uniformly from `0..<ceiling` (AWS's "full jitter", which
    /// spreads retrying clients best); with ``Jitter/none`` it is the ceiling itself.
    public struct Backoff: Sendable, Hashable {
        /// How the pause is drawn below its ceiling.
        public enum Jitter: Sendable, Hashable {
            /// The pause is the ceiling.
            case none
            /// The pause is uniform in `0..<ceiling`.
            case full
        }

        /// The ceiling before the first retry.
        public var initial: Duration

        /// The factor between one ceiling and the next.
        public var multiplier: Double

        /// The largest ceiling. Zero or less makes every pause zero, the retries following one another at once: it
        /// does not mean "no cap" (give a long one for that).
        public var maximum: Duration

        /// How the pause is drawn below the ceiling.
        public var jitter: Jitter

        /// Creates a backoff.
        ///
        /// - Parameters:
        ///   - initial: The ceiling before the first retry.
        ///   - multiplier: The growth factor.
        ///   - maximum: The largest ceiling.
        ///   - jitter: ``Jitter/full`` by default.
        public init(
            initial: Duration = .milliseconds(100),
            multiplier: Double = 2,
            maximum: Duration = .seconds(10),
            jitter: Jitter = .full
        ) {
            self.initial = initial
            self.multiplier = multiplier
            self.maximum = maximum
            self.jitter = jitter
        }

        /// The ceiling of the pause before retry `retry` (1 for the first), in whole nanoseconds.
        ///
        /// - Parameter retry: The number of the retry, from 1.
        public func ceiling(beforeRetry retry: Int) -> Duration {
            let cap = Double(maximum.nanoseconds)
            let start = Double(initial.nanoseconds)
            // In closed form, not by repeated multiplication: a retry number read from a file can be `Int.max`,
            // and a multiplier just above 1 would take that many steps to reach the cap. A power too large for a
            // `Double` is infinite, and the cap holds it.
            let grown =
                retry > 1 && multiplier > 1 && start > 0 ? start * pow(multiplier, Double(retry - 1)) : start
            return Duration(saturatingNanoseconds: max(min(grown, cap), 0).rounded())
        }

        /// The pause before retry `retry`, given a uniform random value in `0..<1`.
        ///
        /// - Parameters:
        ///   - retry: The number of the retry, from 1.
        ///   - unitRandom: A uniform value in `0..<1`; ignored without jitter. A value below 0, or not a number,
        ///     counts as 0; one of 1 or more as the largest value below 1, so the pause stays below the ceiling.
        public func delay(beforeRetry retry: Int, unitRandom: Double) -> Duration {
            let ceiling = ceiling(beforeRetry: retry)
            switch jitter {
            case .none:
                return ceiling
            case .full:
                // `unitRandom >= 0` is false for a NaN, which `min` and `max` would pass through to the product.
                let unit = unitRandom >= 0 ? min(unitRandom, 1.0.nextDown) : 0
                return Duration(saturatingNanoseconds: (Double(ceiling.nanoseconds) * unit).rounded(.down))
            }
        }

        /// The pause before retry `retry`, drawing the jitter from `random`.
        ///
        /// - Parameters:
        ///   - retry: The number of the retry, from 1.
        ///   - random: The generator; one value is drawn even without jitter, so sequences stay aligned.
        public func delay(beforeRetry retry: Int, using random: inout some RandomNumberGenerator) -> Duration {
            delay(beforeRetry: retry, unitRandom: random.nextUnitInterval())
        }
    }
}
