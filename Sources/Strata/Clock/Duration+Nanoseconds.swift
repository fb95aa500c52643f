extension Duration {
    /// The duration's whole seconds and attoseconds, as `components`, but saturating at `Int64.min` and `Int64.max`
    /// seconds: `components` traps on a duration of 2⁶³ seconds or more either way, which a caller's "forever"
    /// (`.seconds(UInt64.max)`) is.
    package var saturatedComponents: (seconds: Int64, attoseconds: Int64) {
        if self > .seconds(Int64.max) { return (.max, 0) }
        if self < .seconds(Int64.min) { return (.min, 0) }
        return components
    }

    /// The duration in whole nanoseconds, saturating at `Int64.min` and `Int64.max`.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = saturatedComponents
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        if sumOverflow { return whole < 0 ? .min : .max }
        return sum
    }

    /// A duration of `nanoseconds` (its fraction dropped), saturating at `Int64.min` and `Int64.max` nanoseconds
    /// (about 292 years either way), and zero for a value that is not a number.
    ///
    /// `Int64(_:)` traps on a `Double` of 2^63 or more, which a product or a power near the largest duration
    /// rounds to.
    ///
    /// - Parameter nanoseconds: A count of nanoseconds, rounded as the caller wants it.
    init(saturatingNanoseconds nanoseconds: Double) {
        if nanoseconds.isNaN {
            self = .zero
        } else if nanoseconds >= 0x1p63 {
            self = .nanoseconds(Int64.max)
        } else if nanoseconds < -0x1p63 {
            self = .nanoseconds(Int64.min)
        } else {
            self = .nanoseconds(Int64(nanoseconds))
        }
    }
}
