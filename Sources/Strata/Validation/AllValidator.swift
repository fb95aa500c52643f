import struct Foundation.Date

/// Accepts a value only when every one of its validators accepts it.
public struct AllValidator<Value>: Validator {
    private let validators: [any Validator<Value>]

    /// Combines validators with a logical AND; an empty list accepts everything.
    ///
    /// - Parameter validators: The validators that must all accept.
    public init(_ validators: [any Validator<Value>]) {
        self.validators = validators
    }

    /// Returns whether every validator accepts the value.
    public func isValid(_ value: Value, context: ValidationContext) -> Bool {
        validators.allSatisfy { $0.isValid(value, context: context) }
    }

    /// The earliest date one of the refusing validators gives: the value stopped being valid when the first one
    /// refused it; `nil` when one of the refusing validators cannot tell (a ``ClosureValidator``), for then the value
    /// may have been refused all along.
    public func staleSince(_ value: Value, context: ValidationContext) -> Date? {
        let refusing = validators.lazy.filter { !$0.isValid(value, context: context) }
        return combinedStaleSince(of: refusing, value, context, picking: min)
    }
}

/// Accepts a value when at least one of its validators accepts it.
public struct AnyValidator<Value>: Validator {
    private let validators: [any Validator<Value>]

    /// Combines validators with a logical OR; an empty list accepts nothing.
    ///
    /// - Parameter validators: The validators of which one must accept.
    public init(_ validators: [any Validator<Value>]) {
        self.validators = validators
    }

    /// Returns whether any validator accepts the value.
    public func isValid(_ value: Value, context: ValidationContext) -> Bool {
        validators.contains { $0.isValid(value, context: context) }
    }

    /// The latest date the validators give: the value stopped being valid when the last one refused it; `nil`
    /// when one of them cannot tell.
    public func staleSince(_ value: Value, context: ValidationContext) -> Date? {
        combinedStaleSince(of: validators, value, context, picking: max)
    }
}

/// The date `pick` takes of those `validators` give for `value` (the earliest, the latest); `nil` when one of them
/// cannot tell, or there is none.
private func combinedStaleSince<Value>(
    of validators: some Sequence<any Validator<Value>>,
    _ value: Value,
    _ context: ValidationContext,
    picking pick: (Date, Date) -> Date
) -> Date? {
    var picked: Date?
    for validator in validators {
        guard let date = validator.staleSince(value, context: context) else { return nil }
        picked = picked.map { pick($0, date) } ?? date
    }
    return picked
}

extension Validator {
    /// A validator that accepts a value only when both this one and `other` accept it.
    ///
    /// - Parameter other: The second validator.
    public func and(_ other: some Validator<Value>) -> AllValidator<Value> {
        AllValidator([self, other])
    }

    /// A validator that accepts a value when this one or `other` accepts it.
    ///
    /// - Parameter other: The second validator.
    public func or(_ other: some Validator<Value>) -> AnyValidator<Value> {
        AnyValidator([self, other])
    }
}
