import struct Foundation.Date

/// One update of a repository stream: loading, a value with its origin and staleness, or an error.
///
/// The Swift counterpart of Store5's `StoreReadResponse`, with staleness added. A screen switches on it:
///
/// ```swift
/// for await response in users.stream(IdQuery(42), operation: .cacheSync) {
///     switch response {
///     case .loading: showSpinner()
///     case .value(let user, _, _, let isStale, let isPending): show(user, dimmed: isStale, saving: isPending)
///     case .error(let error, _): showBanner(error)
///     }
/// }
/// ```
public enum RepositoryResponse<Value: Sendable>: Sendable {
    /// The stream is reading from `origin`; nothing to show yet.
    case loading(origin: DataOrigin)

    /// A value read from `origin`.
    ///
    /// `storedAt` is when the source stored the entry, for sources that record it
    /// (``GetDataSource/getEntry(_:)``), and `nil` otherwise (a value fresh from the network, a stale value whose
    /// date the validator did not pass on). `isStale` is `true` for a value that failed validation and is
    /// shown while a fresh one is fetched. `isPending` is `true` while a write of the value's key waits in an
    /// offline outbox (StrataOffline) to reach main: a screen shows "saving…", then "saved" when a response
    /// with `isPending` `false` follows.
    case value(Value, origin: DataOrigin, storedAt: Date?, isStale: Bool, isPending: Bool = false)

    /// A read from `origin` failed; the stream stays open and reports the next change.
    ///
    /// After a delete of the observed entry the error is a ``StrataError`` with code
    /// ``StrataError/Code/notFound``.
    case error(any Error, origin: DataOrigin)
}

extension RepositoryResponse {
    /// The value of a ``value(_:origin:storedAt:isStale:isPending:)`` response, or `nil`.
    public var value: Value? {
        if case .value(let value, _, _, _, _) = self { value } else { nil }
    }

    /// The error of an ``error(_:origin:)`` response, or `nil`.
    public var error: (any Error)? {
        if case .error(let error, _) = self { error } else { nil }
    }

    /// Where the response came from.
    public var origin: DataOrigin {
        switch self {
        case .loading(let origin), .value(_, let origin, _, _, _), .error(_, let origin): origin
        }
    }

    /// Whether this is a ``loading(origin:)`` response.
    public var isLoading: Bool {
        if case .loading = self { true } else { false }
    }

    /// Whether this is a value that failed validation.
    public var isStale: Bool {
        if case .value(_, _, _, let isStale, _) = self { isStale } else { false }
    }

    /// Whether this is a value with a write of its key still waiting to reach main (an offline outbox's).
    public var isPending: Bool {
        if case .value(_, _, _, _, let isPending) = self { isPending } else { false }
    }

    /// When the value's entry was stored, if its source records it.
    public var storedAt: Date? {
        if case .value(_, _, let storedAt, _, _) = self { storedAt } else { nil }
    }

    /// How old the value's entry is at `now`, if its source records when it was stored.
    ///
    /// A date read from a file can be anything: an age past 292 years either way saturates there, and a difference
    /// that is not a finite number (a stored date that is not one) is no age at all.
    ///
    /// - Parameter now: The current date, from the app's ``WallClock``.
    /// - Returns: The age in whole nanoseconds, negative for a date after `now`; `nil` without a date, or with one
    ///   that gives no finite age.
    public func age(at now: Date) -> Duration? {
        guard let storedAt else { return nil }
        let seconds = now.timeIntervalSince(storedAt)
        guard seconds.isFinite else { return nil }
        return Duration(saturatingNanoseconds: (seconds * 1e9).rounded())
    }
}

extension RepositoryResponse: CustomStringConvertible {
    /// A short description such as `value(42, memory)`, `value(41, memory, stale)` or `value(43, memory, pending)`.
    public var description: String {
        switch self {
        case .loading(let origin): "loading(\(origin))"
        case .value(let value, let origin, _, let isStale, let isPending):
            "value(\(value), \(origin)\(isStale ? ", stale" : "")\(isPending ? ", pending" : ""))"
        case .error(let error, let origin):
            "error(\(error.strataCode.map(String.init(describing:)) ?? "\(error)"), \(origin))"
        }
    }
}
