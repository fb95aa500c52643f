extension Duration {
    /// The longest wait Strata takes as given: about 31 years. A longer one is cut to it, so that no sleep and no
    /// arithmetic on instants can overflow, whatever `Duration` a caller passes (`.seconds(Int64.max)` for "never").
    package static let longestWait = Duration.seconds(1_000_000_000)

    /// This duration as a wait: a negative one as zero, one past ``longestWait`` as that.
    package var clampedAsWait: Duration {
        min(max(self, .zero), .longestWait)
    }

    /// A wait of `seconds` (a time between two dates): none for a negative or NaN one, ``longestWait`` for one past
    /// it or infinite. `Duration.seconds(_:)` traps past `Int64`'s seconds, and on infinity and NaN.
    package static func wait(seconds: Double) -> Duration {
        .seconds(seconds.isNaN ? 0 : min(max(0, seconds), Double(longestWait.components.seconds)))
    }
}
