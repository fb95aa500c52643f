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
        let cost = configuration.cost(value)
        let countLimit = inPlaceCountLimit
        let observed = storage.withLock { storage in
            storage.set(
                key,
                value: value,
                cost: cost,
                storedAt: storedAt,
                expiresAt: expiresAt,
                validators: validators,
                countLimit: countLimit
            )
            evict(&storage)
            return storage.observerCount > 0
        }
        if observed { changeBroadcaster.publish(.put(key: key)) }
    }
}
