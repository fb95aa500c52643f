import Strata

extension FileDataSource {
    /// Removes an entry's file as ``removeFile(_:in:)`` does, forgets the stored list answer (it no longer holds
    /// every entry it listed) and reports the removal to the eviction observer.
    ///
    /// - Throws: As ``removeFile(_:in:)``; nothing is reported then.
    func evictFile(_ name: EntryName, reason: StoreEviction.Reason, in state: inout State) throws(StrataError) {
        let key = state.index.entry(name)?.trailer.key
        try removeFile(name, in: &state)
        storedListAnswer.forget()
        guard let key, let observer = configuration.evictionObserver else { return }
        observer.storeDidEvict(StoreEviction(reason: reason, key: key, usage: state.usage))
    }

    /// Forgets the entry at `name` without touching its file (missing, damaged, foreign, or discarded by the
    /// caller), and the stored list answer with it: the rule for an entry the store drops on its own outside an
    /// eviction (a read that finds its file spoiled, a renewal that fails), as ``evictFile(_:reason:in:)`` is for
    /// one it evicts.
    func forgetEntry(_ name: EntryName, in state: inout State) {
        state.index.remove(name)
        storedListAnswer.forget()
    }
}

extension FileDataSource.State {
    /// The entries and their payload bytes, for eviction reports.
    var usage: StoreUsage { StoreUsage(count: index.count, bytes: index.totalSize) }
}
