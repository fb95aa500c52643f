import struct Foundation.Date

/// Measures the duration of a call: on the monotonic clock when the plugin's clock is the system's, so that a step of
/// the wall clock during a call (a time sync, a user setting the date) measures neither an hour nor nothing; on the
/// plugin's clock when one is injected, so that tests move it.
struct PluginStopwatch {
    private enum Start {
        case monotonic(ContinuousClock.Instant)
        case wall(any WallClock, Date)
    }

    private let start: Start

    /// Starts measuring now.
    init(clock: any WallClock) {
        start = clock is SystemClock ? .monotonic(.now) : .wall(clock, clock.now())
    }

    /// The time since the start, in whole microseconds; zero if an injected clock went backwards.
    ///
    /// A `Date` near today holds about a quarter of a microsecond of precision, so finer digits would be
    /// noise.
    func elapsed() -> Duration {
        switch start {
        case .monotonic(let instant):
            return .microseconds(instant.duration(to: .now).nanoseconds / 1_000)
        case .wall(let clock, let date):
            let seconds = clock.now().timeIntervalSince(date)
            guard seconds > 0 else { return .zero }
            return .microseconds(Int64(min(seconds * 1e6, 9e15).rounded()))
        }
    }
}

extension Duration {
    /// The duration in milliseconds with microsecond precision, such as `12.345 ms`.
    var millisecondsText: String { Self.thousandths(nanoseconds / 1_000, unit: "ms") }

    /// The duration in milliseconds below a second (`12.345 ms`), in seconds from one up (`3.250 s`).
    var readableText: String {
        self < .seconds(1) ? millisecondsText : Self.thousandths(nanoseconds / 1_000_000, unit: "s")
    }

    /// A count of thousandths of `unit` written with three decimals, such as `12.345 ms`; zero if negative.
    private static func thousandths(_ count: Int64, unit: String) -> String {
        let count = max(count, 0)
        let fraction = String(count % 1_000)
        return "\(count / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) \(unit)"
    }
}
