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
