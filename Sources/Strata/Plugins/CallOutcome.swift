/// How a call ended, in the words logs, metrics and traces use: a hit, a miss, a stale value served, an error.
///
/// For a data source: a read that returned is a ``hit``, *not found* a ``miss``, *not valid* ``notValid``. For a
/// repository the sources' steps decide (see ``CallTrail``): a value from the first source asked is a ``hit``, a
/// value from a later source after a miss is a ``miss``, a stale cached value served after main failed is
/// ``staleServed``. A write or a delete that returned is a ``success``. Whatever the method, a call that threw *not
/// found* is a ``miss`` (a delete of a key the source does not hold too) and one that threw *not valid* is
/// ``notValid``; anything else thrown is an ``error``, whose code the integrations report beside the outcome.
public struct CallOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The outcomes; their raw values are the labels.
    @usableFromInline
    enum Kind: String, Sendable, Hashable {
        case hit, miss, staleServed, notValid, success, error
    }

    /// Which outcome this is.
    @usableFromInline let kind: Kind

    /// The outcome `kind`; inlinable, so that naming an outcome on a hot path is a constant.
    @inlinable init(_ kind: Kind) { self.kind = kind }

    /// A read answered by the first source asked.
    @inlinable public static var hit: CallOutcome { CallOutcome(.hit) }

    /// A read that found nothing in a source (*not found*), or that a later source answered after it.
    @inlinable public static var miss: CallOutcome { CallOutcome(.miss) }

    /// A stale cached value served because main failed and the operation's fallback accepted the error.
    @inlinable public static var staleServed: CallOutcome { CallOutcome(.staleServed) }

    /// A read that found a value that failed validation and was not served.
    @inlinable public static var notValid: CallOutcome { CallOutcome(.notValid) }

    /// A write or a delete that returned.
    @inlinable public static var success: CallOutcome { CallOutcome(.success) }

    /// A call that failed with any other error.
    @inlinable public static var error: CallOutcome { CallOutcome(.error) }

    /// The outcome's name — `hit`, `miss`, `staleServed`, `notValid`, `success` or `error` — a stable label.
    public var description: String { kind.rawValue }

    /// The outcome of a call of `method` that returned (`error` `nil`) or threw `error`, without knowing its steps.
    ///
    /// - Parameters:
    ///   - method: The method called.
    ///   - error: The error it threw, or `nil`.
    public init(_ method: PluginCall.Method, error: (any Error)?) {
        guard let error else {
            self = method.isRead ? .hit : .success
            return
        }
        switch error.strataCode {
        case .notFound?: self = .miss
        case .notValid?: self = .notValid
        default: self = .error
        }
    }

    /// The code integrations report beside an ``error`` outcome: the ``StrataError/Code`` of a ``StrataError``
    /// (`notFound`, `network`, …), `other` for another error, `nil` when there is none.
    ///
    /// - Parameter error: What a call threw, or `nil`.
    public static func code(of error: (any Error)?) -> String? {
        error.map { $0.strataCode.map(String.init(describing:)) ?? "other" }
    }
}
