import Foundation

/// Parses the `Retry-After` header (RFC 9110, section 10.2.3).
public enum RetryAfter: Sendable {
    /// Parses a `Retry-After` value: a number of seconds or an HTTP date.
    ///
    /// Total on any input: the wait saturates at 2³¹ seconds, however many digits or however distant a
    /// date the server sends.
    ///
    /// - Parameters:
    ///   - value: The header value.
    ///   - now: The current time, for the date form; a date in the past gives zero.
    /// - Returns: The wait, or `nil` when the value is neither form.
    public static func parse(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingOptionalWhitespace()
        if let seconds = DeltaSeconds.parse(trimmed) { return .seconds(seconds) }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return DeltaSeconds.duration(date.timeIntervalSince(now), rounding: .up)
    }
}
