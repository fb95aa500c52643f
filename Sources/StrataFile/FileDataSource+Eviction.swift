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
}

extension FileDataSource.State {
    /// The entries and their payload bytes, for eviction reports.
    var usage: StoreUsage { StoreUsage(count: index.count, bytes: index.totalSize) }
}
