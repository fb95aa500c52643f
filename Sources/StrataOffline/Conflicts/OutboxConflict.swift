import Strata

/// A replayed write that main refused as a conflict (HTTP 409 or 412, or ``Strata/StrataError/Code/conflict``),
/// with both sides, for a ``ConflictResolver`` to decide.
public struct OutboxConflict<Value: Sendable>: Sendable {
    /// The key of the entry.
    public var key: String

    /// The value the app wrote; `nil` for a delete.
    public var local: Value?

    /// Main's value now; `nil` when main has none (or cannot be read: see ``remoteError``).
    public var remote: Value?

    /// The version of main's value (its entity tag, ``Strata/EntryMetadata/eTag``), when main gave one: a
    /// ``ConflictResolution/keepLocal`` or ``ConflictResolution/merge(_:)`` write is sent on top of it.
    public var remoteVersion: String?

    /// Why main's value could not be read, when it could not; `nil` when ``remote`` is main's answer.
    public var remoteError: (any Error)?

    /// Main's refusal.
    public var error: any Error

    /// The write as the outbox keeps it (attempts, conflicts so far).
    public var write: PendingWrite
}
