import Strata

// A write the cache took first but main refused for good (set aside, or a first attempt refused) or will never get
// (refused by a full outbox) must not stay in the cache as if it were main's: every such path drops the copy here,
// the one rule for all of them.
extension OfflineRepository {
    /// Drops the cache's copy of `key` when no write of the key is left to reach main, after its newest write was
    /// refused for good or could not be queued. Called in the key's cache turn; returns whether the copy was dropped,
    /// and then the caller announces it (``announceSettled(key:)``) once the turn is given back.
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
        guard await !outbox.hasWaitingWrite(key: key) else { return false }
        let query = configuration.query(key)
        // A drop, not a deletion: streams are told to read again, not that the value went. A cache that refuses the
        // delete keeps the copy; the streams still read again.
        try? await ObservationScope.droppingCopies { try await repository.delete(query, operation: .cache) }
        return true
    }

    /// Tells the repository's streams of `key` to read it again, now that no write of the key waits: main took it,
    /// or refused it and the cache's copy went. They show what main holds then: a read of main that a stream made
    /// while the write waited, and finished after, is followed by one made after.
    func announceSettled(key: String) {
        repository.changeBroadcaster.publish(.put(key: key))
    }
}
