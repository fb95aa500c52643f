import Foundation
import Strata

extension MemoryDataSource {
    /// Stores a value that expires at an instant the caller has already computed from its own clock reading,
    /// so that the source's expiry and the caller's metadata agree to the nanosecond.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key.
    ///   - storedAt: The caller's reading of the configuration's clock.
    ///   - expiresAt: When the entry expires; `nil` for never.
    @inlinable
    package func setValue(_ value: Value, forKey key: String, storedAt: Date, expiresAt: Date?) {
        write(value, forKey: key, storedAt: storedAt, expiresAt: expiresAt, validators: nil)
    }

    /// Stores an entry under the lock, evicts beyond the limits, then announces the put to observers.
    @inlinable
    func write(_ value: Value, forKey key: String, storedAt: Date, expiresAt: Date?, validators: EntryValidators?) {
        // A cost is the caller's number: a negative one counts as 0 (it would lower the total, and the limit with it).
        let cost = max(configuration.cost(value), 0)
        if let costLimit = configuration.appliedCostLimit, cost > costLimit {
            writeCostlierThanTheLimit(forKey: key)
            return
        }
        let countLimit = inPlaceCountLimit
        let observed = storage.withLock { storage in
            // A stored list answer must not outlive an entry that expires before it, nor leave out an entry written
            // after it was recorded: noted under the lock that orders this write, as a renewal notes it. (Noted
            // before the lock, a write that then waited for it landed after a list answer recorded meanwhile, which
            // outlived it.)
            storedListAnswer.noteEntry(forKey: key, expiringAt: expiresAt)
            let evictedInPlace = storage.set(
                key,
                value: value,
                cost: cost,
                storedAt: storedAt,
                expiresAt: expiresAt,
                validators: validators,
                countLimit: countLimit
            )
            // The stored list answer no longer holds every entry it listed.
            if evictedInPlace { storedListAnswer.forget() }
            evict(&storage)
            return storage.observerCount > 0
        }
        if observed { changeBroadcaster.publish(.put(key: key)) }
    }

    /// A put of a value that costs more than the whole cost limit: the value is not kept, and nothing else is
    /// evicted for it (stored, it would have evicted every other entry, then itself). The key's earlier value goes,
    /// as a put replaces it, reported as evicted for the size limit; the put is announced as any other. The stored
    /// list answer goes too, whether the key had a value or not: one being stored with this value, or one main's
    /// list now holds it in, is no longer whole.
    @usableFromInline
    func writeCostlierThanTheLimit(forKey key: String) {
        let observed = storage.withLock { storage in
            storedListAnswer.forget()
            if storage.remove(key) {
                configuration.evictionObserver?.storeDidEvict(
                    StoreEviction(reason: .sizeLimit, key: key, usage: usage(of: storage))
                )
            }
            return storage.observerCount > 0
        }
        if observed { changeBroadcaster.publish(.put(key: key)) }
    }
}
