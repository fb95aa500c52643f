import Foundation

/// Accepts a value while it is fresh by its source's rules: until the entry's ``EntryMetadata/freshUntil``.
///
/// An HTTP source (`NetworkGetDataSource`) reports when each response stops being fresh, and a cache keeps that
/// date with its copy. Past it this validator refuses the copy, so a ``CacheRepository`` revalidates it with its
/// ``EntryMetadata/eTag`` or ``EntryMetadata/lastModified`` (a 304 renews it without rewriting it) or serves it
/// stale when its operation allows: the store keeps serving it, unlike past ``EntryMetadata/expiresAt``.
///
/// A value is valid while `now < freshUntil`: at exactly `freshUntil` it is stale. An entry without a
/// ``EntryMetadata/freshUntil`` (its source gave no lifetime) is valid: its store's own expiry, or another
/// validator combined with this one, bounds it.
///
/// ```swift
/// let repository = CacheRepository(main: http, cache: files.validated(by: .fresh(clock: clock)))
/// ```
public struct FreshnessValidator<Value>: Validator {
    private let clock: any WallClock

    /// Creates a validator on the entry's freshness.
    ///
    /// - Parameter clock: The clock that says what time it is.
    public init(clock: any WallClock = SystemClock()) {
        self.clock = clock
    }

    /// Returns whether the entry is still fresh, or has no freshness date.
    public func isValid(_ value: Value, context: ValidationContext) -> Bool {
        guard let freshUntil = context.metadata.freshUntil else { return true }
        return clock.now() < freshUntil
    }

    /// The entry's ``EntryMetadata/freshUntil``.
    public func staleSince(_ value: Value, context: ValidationContext) -> Date? {
        context.metadata.freshUntil
    }
}

extension Validator {
    /// A validator on the entry's freshness: valid until its ``EntryMetadata/freshUntil``, and always when it
    /// has none.
    ///
    /// - Parameter clock: The clock that says what time it is.
    public static func fresh<V>(clock: any WallClock = SystemClock()) -> Self where Self == FreshnessValidator<V> {
        FreshnessValidator(clock: clock)
    }
}
