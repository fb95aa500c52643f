/// What a completed write of a disk store survives: the same two levels for every store.
public enum StoreDurability: Sendable, Hashable {
    /// A temporary file in the store's folder renamed over the entry, without `fsync`: a reader sees the old or
    /// the new entry, never a mix, and a crash of the process loses nothing acknowledged. A power loss may lose
    /// recent writes (never corrupts: a damaged entry is a miss).
    case atomic

    /// As ``atomic``, and the written file and its folder are flushed (`fsync`) before the write returns, so an
    /// acknowledged write survives a power loss. Several times slower.
    case durable
}
