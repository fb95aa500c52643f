/// What a ``ConflictResolver`` decides for a write main refused as a conflict.
public enum ConflictResolution<Value: Sendable>: Sendable {
    /// Send the local write again, as it is (with a new idempotency key, since main refused the old one). To
    /// send it on top of the server's version (a version number, an ETag the value carries), return
    /// ``merge(_:)`` with the local value updated to that version instead.
    case keepLocal
    /// Main is right: the cache takes main's value (or loses the entry when main has none) and the write is
    /// dropped. The default.
    case takeRemote
    /// Send this value instead (a merge of both), and keep it in the cache.
    case merge(Value)
}
