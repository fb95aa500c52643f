import Foundation

/// Accepts a value while a timestamp it carries (when it was fetched, produced, signed) is younger than a maximum
/// age.
///
/// Its sibling ``StoredTimeValidator`` checks the time the *source* stored the entry instead; build them with
/// `.maxAge(_:of:)` and `.maxAge(_:)`.
///
/// ```swift
/// let quotes = MemoryDataSource<Quote>()   // a `Quote` has `var fetchedAt: Date`
/// let cache = quotes.validated(by: TimestampValidator(maxAge: .seconds(300), timestamp: \.fetchedAt))
/// ```
///
/// A value is valid while `now < timestamp + maxAge`: at exactly `timestamp + maxAge` it has expired.
public struct TimestampValidator<Value>: Validator {
    /// The longest time a value stays valid.
    public let maxAge: Duration

    private let timestamp: @Sendable (Value) -> Date
    private let clock: any WallClock

    /// Creates a validator on a timestamp the value carries.
    ///
    /// - Parameters:
    ///   - maxAge: The longest time a value stays valid.
    ///   - timestamp: Reads the date the value was produced.
    ///   - clock: The clock that says what time it is.
    public init(
        maxAge: Duration,
        timestamp: @escaping @Sendable (Value) -> Date,
        clock: any WallClock = SystemClock()
    ) {
        self.maxAge = maxAge
        self.timestamp = timestamp
        self.clock = clock
    }

    /// Returns whether the value's timestamp is younger than ``maxAge``.
    public func isValid(_ value: Value, context: ValidationContext) -> Bool {
        clock.now() < timestamp(value).addingTimeInterval(maxAge.timeInterval)
    }

    /// The value's timestamp plus ``maxAge``.
    public func staleSince(_ value: Value, context: ValidationContext) -> Date? {
        timestamp(value).addingTimeInterval(maxAge.timeInterval)
    }
}

/// The earlier name of ``TimestampValidator``: it checks a timestamp the value carries, where `.maxAge(_:)`
/// builds a ``StoredTimeValidator`` on the entry's stored time.
@available(*, deprecated, renamed: "TimestampValidator")
public typealias MaxAgeValidator<Value> = TimestampValidator<Value>
