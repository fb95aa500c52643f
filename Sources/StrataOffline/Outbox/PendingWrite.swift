import Foundation
import Strata

/// One write that reached the cache but not yet main: a record of an ``Outbox``, kept as a JSON file until main
/// takes the write.
///
/// A record is what the outbox keeps for each write: its sequence number (the order of writes), the entry's key,
/// the operation, the value encoded as JSON, the idempotency key every attempt carries, and how delivery went so
/// far.
public struct PendingWrite: Codable, Sendable, Hashable {
    /// What the write does at main.
    public enum Operation: String, Codable, Sendable, Hashable {
        /// Stores ``PendingWrite/value`` under the key.
        case put
        /// Deletes the key.
        case delete
    }

    /// How main failed a write.
    public enum Failure: String, Codable, Sendable, Hashable {
        /// Main could not be reached: no answer came (a transport failure, a timeout, a refused connection).
        case unreachable
        /// Main answered with an error it may not give next time (HTTP 5xx, 408, 429).
        case answered
    }

    /// The write's place in the order of writes; later writes have larger numbers.
    public var sequence: UInt64

    /// The key of the entry written.
    public var key: String

    /// Whether the write stores or deletes.
    public var operation: Operation

    /// The value of a put, as the outbox's encoder wrote it; `nil` for a delete.
    public var value: Data?

    /// The key every attempt of this write carries (``Strata/IdempotencyKey/current``), so main applies it once.
    public var idempotencyKey: String

    /// How many times main was asked to take the write, the first call included.
    public var attempts: Int

    /// The last failure, for a human; `nil` before any.
    ///
    /// Kept on disk, it names the error without the secrets its message may hold
    /// (``Strata/StrataError/describingWithoutSecrets(_:)``): its code and message, without any URL's user, password,
    /// query or fragment, and without the server's body.
    public var lastError: String?

    /// Whether the last failure was main being unreachable or main answering with an error; `nil` before any
    /// (and in records an earlier version wrote).
    ///
    /// A call main answers replays at once the writes that failed because main was unreachable; a write main
    /// refused itself waits for its backoff.
    public var lastFailure: Failure?

    /// When the write was made.
    public var createdAt: Date

    /// The earliest time the timer replays the write again (the backoff); `nil` for at once.
    public var notBefore: Date?

    /// Whether the write was set aside: main refused it for good (an error that is not retryable), its value no
    /// longer decodes, or its file was damaged. A set-aside write is kept for inspection and never replayed;
    /// drop it with ``Outbox/drop(_:)``.
    public var isSetAside: Bool

    /// How many conflicts the resolver decided for this write.
    public var conflicts: Int

    /// The version of the entry main held when a conflict was settled by keeping the local value (or by a merge):
    /// each later attempt is sent on top of it (``Strata/ExpectedVersion/current``, `If-Match` over HTTP). `nil`
    /// before a conflict, or when main's entry carries no version (no entity tag): the write is then sent as it is.
    public var expectedVersion: String?

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - sequence: The write's place in the order of writes.
    ///   - key: The entry's key.
    ///   - operation: Put or delete.
    ///   - value: The encoded value of a put.
    ///   - idempotencyKey: The key every attempt carries.
    ///   - attempts: Calls made so far.
    ///   - lastError: The last failure.
    ///   - lastFailure: Whether the last failure was main being unreachable.
    ///   - createdAt: When the write was made.
    ///   - notBefore: The earliest time of the next timed replay.
    ///   - isSetAside: Whether the write is no longer replayed.
    ///   - conflicts: Conflicts decided so far.
    ///   - expectedVersion: The version of main's entry the write is sent on top of.
    public init(
        sequence: UInt64,
        key: String,
        operation: Operation,
        value: Data?,
        idempotencyKey: String,
        attempts: Int = 0,
        lastError: String? = nil,
        lastFailure: Failure? = nil,
        createdAt: Date,
        notBefore: Date? = nil,
        isSetAside: Bool = false,
        conflicts: Int = 0,
        expectedVersion: String? = nil
    ) {
        self.sequence = sequence
        self.key = key
        self.operation = operation
        self.value = value
        self.idempotencyKey = idempotencyKey
        self.attempts = attempts
        self.lastError = lastError
        self.lastFailure = lastFailure
        self.createdAt = createdAt
        self.notBefore = notBefore
        self.isSetAside = isSetAside
        self.conflicts = conflicts
        self.expectedVersion = expectedVersion
    }
}

extension PendingWrite {
    /// The store key of sequence number `sequence`: 20 decimal digits, so the store's key order is the order of
    /// writes.
    static func storeKey(_ sequence: UInt64) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    /// The sequence number a store key names, or `nil` for a key the outbox did not write.
    package static func sequence(ofStoreKey key: String) -> UInt64? {
        guard key.utf8.count == 20, key.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return UInt64(key)
    }

    /// The form of an error kept in a record: its description without the secrets it may hold — a token in a URL's
    /// query, a password in its user part, the excerpt of a server's body
    /// (``Strata/StrataError/describingWithoutSecrets(_:)``) — at most 512 Unicode scalars.
    static func describe(_ error: any Error) -> String {
        StrataError.describingWithoutSecrets(error).prefixForMessage(512).text
    }

    /// Records a retryable failure of main: its description, and whether main was unreachable.
    mutating func noteFailure(_ error: any Error, unreachable: Bool) {
        lastError = Self.describe(error)
        lastFailure = unreachable ? .unreachable : .answered
    }

    /// Why this record cannot be replayed as it is, or `nil` when it is sound.
    package var defect: String? {
        if key.isEmpty { return "the record names no key" }
        if attempts < 0 || conflicts < 0 { return "the record has a negative count" }
        if operation == .put, value == nil { return "the put record has no value" }
        // Sent, it would be a put of the value, while reads take the key for deleted.
        if operation == .delete, value != nil { return "the delete record carries a value" }
        if idempotencyKey.isEmpty { return "the record has no idempotency key" }
        return nil
    }
}
