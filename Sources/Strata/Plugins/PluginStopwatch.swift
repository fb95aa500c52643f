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

    /// The time since the start; zero if the clock went backwards.
    func elapsed() -> Duration {
        let seconds = clock.now().timeIntervalSince(start)
        guard seconds > 0 else { return .zero }
        return .nanoseconds(Int64(min(seconds * 1e9, Double(Int64.max)).rounded()))
    }
}
