import Strata

// A write the cache took first but main refused for good (set aside, or a first attempt refused) or will never get
// (refused by a full outbox) must not stay in the cache as if it were main's: every such path drops the copy here,
// the one rule for all of them.
extension OfflineRepository {
    /// Drops the cache's copy of `key` when no write of the key is left to reach main, after its newest write was
    /// refused for good or could not be queued. Called in the key's cache turn; returns whether the copy was dropped,
    /// and then the caller announces it (``announceDroppedCopy(ofKey:)``) once the turn is given back.
    ///
    /// While a later write of the key waits (queued, or a first attempt on its way), the cache holds that write's
    /// value, which main is still to get: it stays. Otherwise the cache held the refused value, which main does not
    /// have, and a read that asks the cache would answer it for good: the next read of the key asks main instead
    /// (as a write of the key that lost a conflict to main's value, whose copy goes too). Nothing main holds is
    /// deleted, and the refused write stays in the outbox, set aside, for inspection.
    ///
    /// - Parameter key: The key whose newest write main refused.
    /// - Returns: Whether the copy was dropped.
    func dropRefusedCopy(ofKey key: String) async -> Bool {
        guard await !outbox.isPending(key: key) else { return false }
        let query = configuration.query(key)
        // A drop, not a deletion: streams are told to read again, not that the value went.
        try? await ObservationScope.droppingCopies { try await repository.delete(query, operation: .cache) }
        return true
    }

    /// Tells the repository's streams of `key` to read it again, after its refused copy was dropped: they show what
    /// main answers then.
    func announceDroppedCopy(ofKey key: String) {
        repository.changeBroadcaster.publish(.put(key: key))
    }

    /// Whether a stream that showed a write of `key` waiting should not repeat its last value as taken by main now
    /// that nothing of the key waits: the cache's copy went, because main refused the write. Checked in the key's
    /// turn, so a refusal in progress has dropped the copy before this looks; the stream then shows its next read.
    ///
    /// - Parameters:
    ///   - query: The stream's query.
    ///   - cache: The repository's cache.
    ///   - turns: The repository's cache turns.
    static func refusedCopyWasDropped(_ query: any KeyedQuery, cache: Cache, turns: KeyTurns) async -> Bool {
        await turns.take(query.key)
        let dropped: Bool
        do {
            _ = try await cache.get(query)
            dropped = false
        } catch {
            dropped = error.strataCode == .notFound
        }
        await turns.giveBack(query.key)
        return dropped
    }
}
