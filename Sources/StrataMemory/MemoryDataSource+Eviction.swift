import Strata

extension MemoryDataSource {
    /// Removes the least recently used entry, forgets the stored list answer (it no longer holds every entry it
    /// listed) and reports the entry to the eviction observer; whether there was one.
    ///
    /// - Parameters:
    ///   - storage: The locked storage.
    ///   - reason: Why it goes.
    @inlinable
    func evictLeastRecentlyUsed(_ storage: inout LRUStorage<Value>, reason: StoreEviction.Reason) -> Bool {
        let key = configuration.evictionObserver == nil ? nil : storage.leastRecentlyUsedKey
        guard storage.removeLeastRecentlyUsed() else { return false }
        storedListAnswer.forget()
        if let key, let observer = configuration.evictionObserver {
            observer.storeDidEvict(StoreEviction(reason: reason, key: key, usage: usage(of: storage)))
        }
        return true
    }

    /// Removes the expired entry under `key`, forgets the stored list answer and reports the entry to the eviction
    /// observer.
    @usableFromInline
    func expire(_ key: String, in storage: inout LRUStorage<Value>) {
        guard storage.remove(key) else { return }
        storedListAnswer.forget()
        configuration.evictionObserver?.storeDidEvict(
            StoreEviction(reason: .expired, key: key, usage: usage(of: storage))
        )
    }

    /// The count limit a write passes to the storage, which evicts in place for it: none when an observer must hear
    /// each eviction (``evict(_:)`` then removes the same entry after the insertion and reports it).
    @inlinable
    var inPlaceCountLimit: Int {
        configuration.evictionObserver == nil ? configuration.countLimit ?? .max : .max
    }

    /// The entries of `storage` and, when the cost counts bytes, their total cost, for eviction reports.
    @usableFromInline
    func usage(of storage: LRUStorage<Value>) -> StoreUsage {
        StoreUsage(count: storage.count, bytes: configuration.costCountsBytes ? storage.totalCost : nil)
    }
}
