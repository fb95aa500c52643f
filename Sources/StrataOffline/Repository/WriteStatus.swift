/// Whether a write through an ``OfflineRepository`` reached main, or waits in its outbox.
public enum WriteStatus: Sendable, Hashable {
    /// Main took the write.
    case saved
    /// The cache has the write; main failed with a retryable error (or a write of the key was already waiting, or on
    /// its way to main), so the write waits in the outbox as this record and will be replayed.
    case pending(PendingWrite)

    /// Whether the write waits in the outbox.
    public var isPending: Bool {
        if case .pending = self { true } else { false }
    }
}

/// The result of a put through an ``OfflineRepository``: the value and whether it reached main.
public struct OfflineWrite<Value: Sendable>: Sendable {
    /// Main's returned value when main took the write; the cache's otherwise.
    public var value: Value

    /// ``WriteStatus/saved`` or ``WriteStatus/pending(_:)``.
    public var status: WriteStatus

    /// Whether the write waits in the outbox.
    public var isPending: Bool { status.isPending }
}

/// A value read through an ``OfflineRepository``, and whether a write of its key waits to reach main.
public struct OfflineValue<Value: Sendable>: Sendable {
    /// The value: the newest pending write's while one waits.
    public var value: Value

    /// Whether a write of the key waits in the outbox (or is on its way to main).
    public var isPending: Bool
}

/// What one replay did.
public struct SyncReport: Sendable, Hashable {
    /// Writes main took.
    public var delivered: Int

    /// Writes a conflict resolver settled without sending them again (``ConflictResolution/takeRemote``).
    public var resolvedByRemote: Int

    /// Writes still queued (not set aside) after the replay.
    public var remaining: Int

    /// Writes set aside (never replayed) after the replay.
    public var setAside: Int

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - delivered: Writes main took.
    ///   - resolvedByRemote: Writes settled by main's value.
    ///   - remaining: Writes still queued.
    ///   - setAside: Writes set aside.
    public init(delivered: Int, resolvedByRemote: Int, remaining: Int, setAside: Int) {
        self.delivered = delivered
        self.resolvedByRemote = resolvedByRemote
        self.remaining = remaining
        self.setAside = setAside
    }
}
