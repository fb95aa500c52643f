/// Parses the `delta-seconds` of HTTP headers (RFC 9111, section 1.2.2): `Age`, `Retry-After`, and the
/// arguments of `max-age`, `s-maxage`, `stale-while-revalidate` and `stale-if-error`.
///
/// Every result saturates at ``maximum`` (2³¹ seconds, about 68 years), as the RFC asks of a value the
/// recipient cannot represent: no input, however long or odd, can overflow or trap. The entry points are
/// small and total so that a fuzz target can call them directly.
enum DeltaSeconds {
    /// The largest delta-seconds a cache must represent, and the value of any larger one: 2³¹.
    static let maximum = 2_147_483_648

    /// The value of a string of ASCII digits, saturated at ``maximum``.
    ///
    /// - Parameter text: The value, without surrounding whitespace.
    /// - Returns: The number of seconds, or `nil` when the text is empty or holds anything but the digits
    ///   `0`–`9` (a sign, a fraction, other scripts' digits).
    static func parse(_ text: some StringProtocol) -> Int? {
        guard !text.utf8.isEmpty else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            // Once at the maximum the value stays there; below it, one more digit cannot overflow `Int`.
            if value < maximum { value = min(value * 10 + Int(byte - UInt8(ascii: "0")), maximum) }
        }
        return value
    }

    /// A number of seconds from date arithmetic as a `Duration`: negative and NaN as zero, saturated at
    /// ``maximum``.
    ///
    /// - Parameters:
    ///   - seconds: The interval, such as `expires.timeIntervalSince(date)`.
    ///   - rule: How a fraction of a second is rounded to whole seconds.
    static func duration(_ seconds: Double, rounding rule: FloatingPointRoundingRule = .towardZero) -> Duration {
        // `!(seconds > 0)` is also true for NaN.
        guard seconds > 0 else { return .zero }
        guard seconds < Double(maximum) else { return .seconds(maximum) }
        return .seconds(Int(seconds.rounded(rule)))
    }
}
