import Foundation

/// Accepts a value while its entry is younger than a maximum age, by the date its source stored it.
///
/// It needs a source that records when each entry was stored (``GetDataSource/getEntry(_:)``: the memory,
/// file and JSON-file sources do). A value whose stored date is unknown is treated as invalid.
///
/// A value is valid while `storedAt <= now < storedAt + maxAge`: at exactly `storedAt + maxAge` it has expired. One
/// stored later than now (while the clock was ahead, since set back; by another machine's clock) is not valid: its
/// age is unknown, and it would otherwise stay valid for as long as its date is ahead, on top of `maxAge`.
public struct StoredTimeValidator<Value>: Validator {
    /// The longest time an entry stays valid.
    public let maxAge: Duration

    private let clock: any WallClock

    /// Creates a validator on the entry's stored time.
    ///
    /// - Parameters:
    ///   - maxAge: The longest time an entry stays valid.
    ///   - clock: The clock that says what time it is.
    public init(maxAge: Duration, clock: any WallClock = SystemClock()) {
        self.maxAge = maxAge
        self.clock = clock
    }

    /// Returns whether the entry was stored less than ``maxAge`` ago, and not later than now.
    public func isValid(_ value: Value, context: ValidationContext) -> Bool {
        guard let storedAt = context.storedAt else { return false }
        let now = clock.now()
        return storedAt <= now && now < storedAt.addingTimeInterval(maxAge.timeInterval)
    }

    /// The end of the entry's ``maxAge``: its stored date plus the maximum age; `nil` for an entry stored later than
    /// now, whose age is unknown (it may have been stale all along).
    public func staleSince(_ value: Value, context: ValidationContext) -> Date? {
        guard let storedAt = context.storedAt, storedAt <= clock.now() else { return nil }
        return storedAt.addingTimeInterval(maxAge.timeInterval)
    }
}

extension Validator {
    /// A validator on the entry's stored time: valid for `maxAge` after the source stored it.
    ///
    /// - Parameters:
    ///   - maxAge: The longest time an entry stays valid.
    ///   - clock: The clock that says what time it is.
    public static func maxAge<V>(_ maxAge: Duration, clock: any WallClock = SystemClock()) -> Self
    where Self == StoredTimeValidator<V> {
        StoredTimeValidator(maxAge: maxAge, clock: clock)
    }

    /// A validator on a timestamp the value carries: valid for `maxAge` after that timestamp.
    ///
    /// - Parameters:
    ///   - maxAge: The longest time a value stays valid.
    ///   - timestamp: Reads the date the value was produced.
    ///   - clock: The clock that says what time it is.
    public static func maxAge<V>(
        _ maxAge: Duration,
        of timestamp: @escaping @Sendable (V) -> Date,
        clock: any WallClock = SystemClock()
    ) -> Self where Self == TimestampValidator<V> {
        TimestampValidator(maxAge: maxAge, timestamp: timestamp, clock: clock)
    }
}
