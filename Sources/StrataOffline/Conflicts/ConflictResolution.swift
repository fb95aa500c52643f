/// What a ``ConflictResolver`` decides for a write main refused as a conflict.
public enum ConflictResolution<Value: Sendable>: Sendable {
    /// Send the local write again (with a new idempotency key, since main refused the old one) on top of main's
    /// current version: the version main's entry carried when the conflict was read
    /// (``OutboxConflict/remoteVersion``, its entity tag) is bound as ``Strata/ExpectedVersion/current`` — the
    /// `If-Match` header of the HTTP data sources — so main applies it only if nobody changed the entry since, and
    /// refuses it as a new conflict otherwise. When main's entry carries no entity tag, the write is sent as it
    /// is; to send it on top of a version the value itself carries (a version number), return ``merge(_:)`` with
    /// the local value updated to that version.
    case keepLocal
    /// Main is right: the cache takes main's value (or loses the entry when main has none) and the write is
    /// dropped. The default.
    case takeRemote
    /// Send this value instead (a merge of both), on top of main's current version as ``keepLocal`` is, and keep
    /// it in the cache. A queued delete becomes a put of this value.
    case merge(Value)
}
