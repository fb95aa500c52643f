import Foundation

/// Decides whether a stored value may still be served.
///
/// Wrap a data source with ``GetDataSource/validated(by:)`` and a value that fails validation becomes a
/// ``StrataError/Code/notValid`` error that carries the value, which ``CacheRepository`` uses to refetch
/// (CacheSync) or to serve stale data (fallback, ``CacheOperation/ignoringValidation``).
///
/// Strata ships ``TimestampValidator`` (age of a timestamp the value carries), ``StoredTimeValidator`` (age
/// of the entry in its source), ``FreshnessValidator`` (the freshness its source gave it) and the combinators
/// ``AllValidator`` and ``AnyValidator``.
public protocol Validator<Value>: Sendable {
    /// The type of value this validator checks.
    associatedtype Value

    /// Returns whether the value may still be served.
    ///
    /// - Parameters:
    ///   - value: The stored value.
    ///   - context: What is known about the stored entry, such as when it was stored.
    func isValid(_ value: Value, context: ValidationContext) -> Bool

    /// When a value this validator refuses stopped being valid, if the validator can tell.
    ///
    /// A ``CacheRepository`` reading with a stale-while-revalidate window
    /// (``OperationPlan/BackgroundRefresh``) serves a stale value at once only while it has been stale for less
    /// than the window. The default is `nil`: the repository then reads main before answering. Strata's
    /// validators tell: ``StoredTimeValidator`` and ``TimestampValidator`` the end of the maximum age,
    /// ``FreshnessValidator`` the entry's ``EntryMetadata/freshUntil``.
    ///
    /// - Parameters:
    ///   - value: The stored value, refused by ``isValid(_:context:)``.
    ///   - context: What is known about the stored entry.
    /// - Returns: The date the value stopped being valid, or `nil` when unknown.
    func staleSince(_ value: Value, context: ValidationContext) -> Date?
}

// MARK: - Defaults

extension Validator {
    /// `nil`: the validator does not say when a value became stale.
    public func staleSince(_ value: Value, context: ValidationContext) -> Date? { nil }
}

/// What a validator knows about a stored entry beyond its value.
public struct ValidationContext: Sendable {
    /// What the source knows about the entry: stored date, freshness, expiry, validators.
    public var metadata: EntryMetadata

    /// When the entry was written to its source, if the source records it.
    public var storedAt: Date? {
        get { metadata.storedAt }
        set { metadata.storedAt = newValue }
    }

    /// Creates a context.
    ///
    /// - Parameter storedAt: When the entry was stored, if known.
    public init(storedAt: Date? = nil) {
        self.metadata = EntryMetadata(storedAt: storedAt)
    }

    /// Creates a context from an entry's metadata.
    ///
    /// - Parameter metadata: What the source knows about the entry.
    public init(_ metadata: EntryMetadata) {
        self.metadata = metadata
    }
}

/// A validator made of a closure.
public struct ClosureValidator<Value>: Validator {
    private let check: @Sendable (Value, ValidationContext) -> Bool

    /// Creates a validator from a closure.
    ///
    /// - Parameter check: Returns whether the value may still be served.
    public init(_ check: @escaping @Sendable (Value, ValidationContext) -> Bool) {
        self.check = check
    }

    /// Calls the closure.
    public func isValid(_ value: Value, context: ValidationContext) -> Bool {
        check(value, context)
    }
}
