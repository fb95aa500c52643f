import struct Foundation.Date

/// Measures the duration of a call on a plugin's clock.
struct PluginStopwatch {
    private let clock: any WallClock
    private let start: Date

    /// Starts measuring now.
    init(clock: any WallClock) {
        self.clock = clock
        self.start = clock.now()
    }

    /// The time since the start, in whole microseconds; zero if the clock went backwards.
    ///
    /// A `Date` near today holds about a quarter of a microsecond of precision, so finer digits would be
    /// noise.
    func elapsed() -> Duration {
        let seconds = clock.now().timeIntervalSince(start)
        guard seconds > 0 else { return .zero }
        return .microseconds(Int64(min(seconds * 1e6, 9e15).rounded()))
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
