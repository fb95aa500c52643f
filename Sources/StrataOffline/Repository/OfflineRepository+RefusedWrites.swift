import Strata

// A write the cache took first but main refused for good (set aside, or a first attempt refused) or will never get
// (refused by a full outbox, or taken back by the app) must not stay in the cache as if it were main's: every such
// path drops the copy here, the one rule for all of them.
extension OfflineRepository {
    /// Drops the cache's copy of `key` when no write of the key is left to reach main, after its newest write was
    /// refused for good or could not be queued, and tells the key's streams to read it again. Called in the key's
    /// cache turn: a stream that rereads checks the cache in that turn, so it finds the copy gone.
    ///
    /// While a later write of the key waits (queued, or a first attempt on its way), the cache holds that write's
    /// value, which main is still to get: it stays. Otherwise the cache held the refused value, which main does not
    /// have, and a read that asks the cache would answer it for good: the next read of the key asks main instead
    /// (as a write of the key that lost a conflict to main's value, whose copy goes too). Nothing main holds is
    /// deleted, and the refused write stays in the outbox, set aside, for inspection. Main may still hold the key (its
    /// value from before the refused write), so the cache's list answer goes with the copy
    /// (``Strata/CacheRepository/dropCopy(mainMayHold:)``): a listing served from the cache never leaves the key out.
    ///
    /// - Parameters:
    ///   - key: The key whose newest write main refused.
    ///   - sequence: The number of that write while it is still queued (a replayed write about to be set aside): it is
    ///     no write that waits.
    /// - Returns: Whether the copy went, or had to stay for a later write; `false` when the cache kept it (it refused
    ///   the delete, or the task was cancelled first).
    @discardableResult
    func dropRefusedCopy(ofKey key: String, settling sequence: UInt64? = nil) async -> Bool {
        guard await !outbox.hasWaitingWrite(key: key, besides: sequence) else { return true }
        // A drop, not a deletion: no stream is told that the value went; they are told to read again, and show what
        // main answers then. A cache that refuses the delete keeps the copy; the streams still read again.
        return await repository.dropCopy(mainMayHold: configuration.query(key))
    }

    /// Puts the cache of each key whose queued write the app dropped (``Outbox/drop(_:)``) back to what main is still
    /// to get — the key's latest write that waits, or a first attempt on its way — or, when nothing waits, drops its
    /// copy (``restoreCache(key:firstAttempt:)``), then gives back the turns of `keys`, which were taken before the
    /// drop: a stream that sees such a key settle finds its cache already put back. A key whose record was queued
    /// while the drop waited for those turns is put back after they are given back, in a turn of its own (two drops
    /// never wait for each other's turns; its stream may show the dropped value as saved until then).
    ///
    /// - Parameters:
    ///   - keys: The keys whose turns were taken before the drop.
    ///   - forgotten: The keys of the queued writes the drop removed.
    ///   - repository: The repository, unless it went meanwhile: then the turns are only given back.
    ///   - turns: The repository's cache turns.
    static func restoreCache(
        afterDropping keys: [String],
        forgotten: [String],
        in repository: OfflineRepository?,
        turns: KeyTurns
    ) async {
        let forgotten = Set(forgotten)
        for key in keys where forgotten.contains(key) { await repository?.restoreCache(key: key) }
        for key in keys { await turns.giveBack(key) }
        for key in forgotten.subtracting(keys).sorted() {
            await turns.take(key)
            await repository?.restoreCache(key: key)
            await turns.giveBack(key)
        }
    }
}
