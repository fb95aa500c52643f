import Foundation

/// The error every Strata data source, repository and plugin throws.
///
/// A caller switches on ``code`` — ``Code/notFound``, ``Code/notValid``, ``Code/network`` and so on —
/// and reads ``message`` and ``underlying`` for diagnostics. The code is a struct over a private enum, so new codes can be added without breaking a caller's `switch` (match with `==` or
/// `case .notFound` patterns and keep a `default`).
///
/// The error names no transport: what a source knows about its protocol — an HTTP status, the response's
/// headers, a `Retry-After` — is in its own error type, reached as ``underlying`` (see ``cause(as:)``). Whether
/// to retry, and after how long, stay answerable here: ``isRetryable`` and ``suggestedRetryDelay``, which a
/// cause adopting ``RetryAdvising`` supplies.
///
/// ```swift
/// do {
///     let user = try await users.get(IdQuery(42), operation: .cacheSync)
///     show(user)
/// } catch let error as StrataError where error.code == .notFound {
///     showEmptyState()
/// }
/// ```
public struct StrataError: Error, Sendable {
    /// What kind of failure this is; stable across releases.
    public var code: Code

    /// A human-readable explanation of this particular failure.
    public var message: String {
        get { text.message }
        set { text = .given(newValue) }
    }

    /// The message, or what it is written from when it is read: a miss, which a repository reading through a cache
    /// makes and drops on every cache miss, does not quote its key until someone reads its message.
    private var text: Text

    /// The error that caused this one, if any (a POSIX error, a `URLError`, a `DecodingError`, …).
    public var underlying: (any Error)?

    /// Whether repeating the same call may succeed (a transport failure, a server that is busy or down).
    ///
    /// The retry plugin reads this by default.
    public var isRetryable: Bool

    /// Whether the source said the failed call may still have taken effect (``mayHaveTakenEffect``).
    var mayHaveTakenEffectHere = false

    /// A value the failing call still had at hand, such as the stale value of a ``Code/notValid``
    /// error or the main source's value of a ``Code/cacheSyncFailed`` error.
    ///
    /// Read it typed with ``value(as:)``.
    public var payload: (any Sendable)?

    /// The source file where the error was created.
    public var file: String

    /// The source line where the error was created.
    public var line: Int

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What went wrong, for a human.
    ///   - underlying: The error that caused this one; a source's own failure (an HTTP response, say) that
    ///     may adopt ``RetryAdvising`` to say how long to wait.
    ///   - isRetryable: Whether repeating the call may succeed; defaults to `true` for
    ///     ``Code/network`` errors and `false` otherwise.
    ///   - mayHaveTakenEffect: Whether the failed call may still have taken effect at the source
    ///     (``mayHaveTakenEffect``); `false` by default.
    ///   - payload: A value the failing call still had at hand.
    ///   - file: The source file creating the error; leave the default.
    ///   - line: The source line creating the error; leave the default.
    public init(
        _ code: Code,
        _ message: String,
        underlying: (any Error)? = nil,
        isRetryable: Bool? = nil,
        mayHaveTakenEffect: Bool = false,
        payload: (any Sendable)? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.init(
            code,
            text: .given(message),
            underlying: underlying,
            isRetryable: isRetryable,
            payload: payload,
            file: file,
            line: line
        )
        mayHaveTakenEffectHere = mayHaveTakenEffect
    }

    private init(
        _ code: Code,
        text: Text,
        underlying: (any Error)?,
        isRetryable: Bool?,
        payload: (any Sendable)?,
        file: String,
        line: Int
    ) {
        self.code = code
        self.text = text
        self.underlying = underlying
        self.isRetryable = isRetryable ?? (code == .network)
        self.payload = payload
        self.file = file
        self.line = line
    }

    /// Returns ``payload`` if it holds a value of the given type.
    ///
    /// - Parameter type: The type the payload is expected to have.
    /// - Returns: The payload, or `nil` when there is none or it has another type.
    public func value<Value>(as type: Value.Type = Value.self) -> Value? {
        if let stale = payload as? any StalePayload { return stale.staleValue as? Value }
        return payload as? Value
    }
}

extension StrataError {
    /// A message as given, or as written when it is read.
    private enum Text: Sendable {
        /// The message.
        case given(String)
        /// `No value for key "…"`: the message of ``StrataError/notFound(key:file:line:)``.
        case noValue(key: String)

        var message: String {
            switch self {
            case .given(let message): message
            case .noValue(let key): "No value for key \(StrataError.quoted(key: key))"
            }
        }
    }

    /// The *not found* error of a store that has no value for `key`, whose message quotes the key when it is read.
    static func noValue(forKey key: String, file: String, line: Int) -> StrataError {
        StrataError(
            .notFound,
            text: .noValue(key: key),
            underlying: nil,
            isRetryable: nil,
            payload: nil,
            file: file,
            line: line
        )
    }
}

// MARK: - Factories

extension StrataError {
    /// A *not found* error: the source holds nothing for the query.
    public static func notFound(
        _ message: String = "No value for the query",
        file: String = #fileID,
        line: Int = #line
    ) -> StrataError {
        StrataError(.notFound, message, file: file, line: line)
    }

    /// A *not valid* error carrying the stale value, so that callers may still serve it.
    public static func notValid(
        staleValue: (any Sendable)?,
        _ message: String = "The stored value is no longer valid",
        file: String = #fileID,
        line: Int = #line
    ) -> StrataError {
        StrataError(.notValid, message, payload: staleValue, file: file, line: line)
    }

    /// A *not valid* error carrying the stale entry, so that callers may still serve its value and revalidate
    /// it with its metadata (``value(as:)`` gives the value, ``staleEntry(as:)`` the entry).
    ///
    /// - Parameters:
    ///   - staleEntry: The refused entry.
    ///   - staleSince: When the entry stopped being valid, if the validator can tell (``staleSince``).
    ///   - message: What failed.
    ///   - file: The file of the call.
    ///   - line: The line of the call.
    public static func notValid<Value: Sendable>(
        staleEntry: StoredEntry<Value>,
        staleSince: Date? = nil,
        _ message: String = "The stored value is no longer valid",
        file: String = #fileID,
        line: Int = #line
    ) -> StrataError {
        let payload = StaleEntry(entry: staleEntry, staleSince: staleSince)
        return StrataError(.notValid, message, payload: payload, file: file, line: line)
    }

    /// A *not valid* error carrying the stale entries of a list read (``value(as:)`` gives the values as an
    /// array, ``staleEntries(as:)`` the entries).
    ///
    /// - Parameters:
    ///   - staleEntries: The entries of the list read.
    ///   - staleSince: When the first refused entry stopped being valid, if the validator can tell.
    ///   - message: What failed.
    ///   - file: The file of the call.
    ///   - line: The line of the call.
    public static func notValid<Value: Sendable>(
        staleEntries: [StoredEntry<Value>],
        staleSince: Date? = nil,
        _ message: String = "A stored value is no longer valid",
        file: String = #fileID,
        line: Int = #line
    ) -> StrataError {
        let payload = StaleEntries(entries: staleEntries, staleSince: staleSince)
        return StrataError(.notValid, message, payload: payload, file: file, line: line)
    }

    /// A *query not supported* error naming the query's type and the source that refused it.
    public static func queryNotSupported(
        _ query: any Query,
        by source: Any.Type,
        file: String = #fileID,
        line: Int = #line
    ) -> StrataError {
        StrataError(.queryNotSupported, "\(source) does not support \(type(of: query))", file: file, line: line)
    }

    /// An *operation not supported* error naming the operation and the repository that refused it.
    public static func operationNotSupported(
        _ operation: any RepositoryOperation,
        by repository: Any.Type,
        file: String = #fileID,
        line: Int = #line
    ) -> StrataError {
        let message = "\(repository) does not support \(type(of: operation))"
        return StrataError(.operationNotSupported, message, file: file, line: line)
    }

    /// Wraps any error as a *data serialization* error, keeping a ``StrataError`` as it is.
    public static func serialization(
        _ error: any Error,
        _ message: String = "Mapping the value failed",
        file: String = #fileID,
        line: Int = #line
    ) -> StrataError {
        if let error = error as? StrataError { return error }
        return StrataError(.dataSerialization, message, underlying: error, file: file, line: line)
    }

    /// Wraps a file-system error as an *I/O* error, keeping a ``StrataError`` as it is.
    public static func io(
        _ message: String,
        underlying: (any Error)? = nil,
        file: String = #fileID,
        line: Int = #line
    ) -> StrataError {
        if let error = underlying as? StrataError { return error }
        return StrataError(.io, message, underlying: underlying, file: file, line: line)
    }

    /// Whether this error means "ask another source": ``Code/notFound`` or ``Code/notValid``.
    public var isMiss: Bool {
        code == .notFound || code == .notValid
    }
}

/// Checks an arbitrary error for a Strata code.
extension Error {
    /// The ``StrataError/Code`` of this error, or `nil` when it is not a ``StrataError``.
    public var strataCode: StrataError.Code? {
        (self as? StrataError)?.code
    }
}
