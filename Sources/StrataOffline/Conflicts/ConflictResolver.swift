/// Decides what happens to a replayed write that main refused as a conflict.
///
/// The outbox asks main for its value, then calls the resolver with both sides (``OutboxConflict``). The
/// default, ``takeRemote``, lets the server win: the cache takes main's value and the write is dropped, so the
/// app never overwrites a change it has not seen. A resolver that throws sets the write aside, unless the replay
/// was cancelled meanwhile (``OfflineRepository/close()``, or the task of ``OfflineRepository/sync()``): the write
/// then stays queued as it was, and the next replay asks again.
///
/// ```swift
/// let resolver = ConflictResolver<Note> { conflict in
///     guard let local = conflict.local, let remote = conflict.remote else { return .takeRemote }
///     return .merge(Note(id: local.id, text: remote.text + "\n" + local.text, version: remote.version))
/// }
/// ```
public struct ConflictResolver<Value: Sendable>: Sendable {
    /// The decision.
    public let resolve: @Sendable (OutboxConflict<Value>) async throws -> ConflictResolution<Value>

    /// Creates a resolver.
    ///
    /// - Parameter resolve: Decides a conflict; may read other state, ask the user, or throw to set it aside.
    public init(_ resolve: @escaping @Sendable (OutboxConflict<Value>) async throws -> ConflictResolution<Value>) {
        self.resolve = resolve
    }

    /// The server wins: the cache takes main's value and the write is dropped.
    public static var takeRemote: Self { Self { _ in .takeRemote } }

    /// The app wins: the local write is sent again.
    public static var keepLocal: Self { Self { _ in .keepLocal } }
}
