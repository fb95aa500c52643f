/// Parses the `delta-seconds` of HTTP headers (RFC 9111, section 1.2.2): `Age`, `Retry-After`, and the
/// arguments of `max-age`, `s-maxage`, `stale-while-revalidate` and `stale-if-error`.
///
/// Every result saturates at ``maximum`` (2³¹ seconds, about 68 years), as the RFC asks of a value the
/// recipient cannot represent: no input, however long or odd, can overflow or trap. The entry points are
/// small and total so that a fuzz target can call them directly.
enum DeltaSeconds {
    /// The largest delta-seconds a cache must represent, and the value of any larger one: 2³¹ (an `Int64`: a
    /// 32-bit `Int`, as on arm64_32 watchOS, cannot hold it).
    static let maximum: Int64 = 2_147_483_648

    /// The value of a string of ASCII digits, saturated at ``maximum``.
    ///
    /// - Parameter text: The value, without surrounding whitespace.
    /// - Returns: The number of seconds, or `nil` when the text is empty or holds anything but the digits
    ///   `0`–`9` (a sign, a fraction, other scripts' digits).
    static func parse(_ text: some StringProtocol) -> Int64? {
        guard !text.utf8.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            // Once at the maximum the value stays there; below it, one more digit cannot overflow `Int`.
            if value < maximum { value = min(value * 10 + Int64(byte - UInt8(ascii: "0")), maximum) }
        }
        return value
    }

    /// The value of an `Age` field: its first member when a list came (two `Age` lines, or `Age: 30, 30`), which
    /// RFC 9111, section 5.1, asks a cache to use; `nil` when that member is not delta-seconds.
    ///
    /// - Parameter field: The field's value, lines joined by commas.
    static func age(_ field: String) -> Int64? {
        let first = field.utf8.firstIndex(of: UInt8(ascii: ",")).map { field[..<$0] } ?? field[...]
        return parse(first.trimmingOptionalWhitespace())
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
        return .seconds(Int64(seconds.rounded(rule)))
    }
}
