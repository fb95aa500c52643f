/// What a ``MetricsPlugin`` counted for one method, operation and source.
public struct CallMetrics: Sendable, Hashable {
    /// Calls that finished, in any way.
    public var calls = 0

    /// Calls that returned: the hits, for reads.
    public var successes = 0

    /// Calls that failed with ``StrataError/Code/notFound``.
    public var notFound = 0

    /// Calls that failed with ``StrataError/Code/notValid``.
    public var notValid = 0

    /// Calls that failed with another ``StrataError``, by code.
    public var errors: [StrataError.Code: Int] = [:]

    /// Calls that failed with an error that is not a ``StrataError``.
    public var otherErrors = 0

    /// The durations of all the calls.
    public var latency = LatencyHistogram()

    /// Creates empty metrics.
    public init() {}

    /// Reads that found a value (``successes``).
    public var hits: Int { successes }

    /// Reads that found nothing usable: ``notFound`` plus ``notValid``.
    public var misses: Int { notFound + notValid }

    /// Calls that failed with anything but a miss.
    public var failures: Int { errors.values.reduce(otherErrors, +) }

    /// Counts one finished call.
    ///
    /// - Parameters:
    ///   - error: The error it failed with, or `nil` when it returned.
    ///   - duration: How long it took.
    public mutating func record(error: (any Error)?, duration: Duration) {
        calls += 1
        latency.record(duration)
        guard let error else {
            successes += 1
            return
        }
        switch error.strataCode {
        case .notFound?: notFound += 1
        case .notValid?: notValid += 1
        case let code?: errors[code, default: 0] += 1
        case nil: otherErrors += 1
        }
    }

    /// Adds the counts of other metrics to these.
    ///
    /// - Parameter other: The metrics to add.
    public mutating func merge(_ other: CallMetrics) {
        calls += other.calls
        successes += other.successes
        notFound += other.notFound
        notValid += other.notValid
        errors.merge(other.errors, uniquingKeysWith: +)
        otherErrors += other.otherErrors
        latency.merge(other.latency)
    }
}
