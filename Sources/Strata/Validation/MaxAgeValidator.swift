import Foundation

/// Accepts a value while the timestamp it carries is younger than a maximum age.
///
/// ```swift
/// let cache = memory.validated(by: MaxAgeValidator(maxAge: .seconds(300), timestamp: \.fetchedAt))
/// ```
///
/// A value is valid while `now < timestamp + maxAge`: at exactly `timestamp + maxAge` it has expired.
public struct MaxAgeValidator<Value>: Validator {
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
}
