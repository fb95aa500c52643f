import Foundation

/// Parses the `Retry-After` header (RFC 9110, section 10.2.3).
public enum RetryAfter: Sendable {
    /// Parses a `Retry-After` value: a number of seconds or an HTTP date.
    ///
    /// - Parameters:
    ///   - value: The header value.
    ///   - now: The current time, for the date form; a date in the past gives zero.
    /// - Returns: The wait, or `nil` when the value is neither form.
    public static func parse(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return .seconds(Int(trimmed) ?? CacheControl.maximumDeltaSeconds)
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .seconds(Int(seconds.rounded(.up))) : .zero
    }
}
