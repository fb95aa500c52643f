import Foundation
import Strata

extension JSONFileDataSource {
    /// Evicts the least recently used entries while the store holds more than ``Configuration/countLimit`` entries
    /// or more than ``Configuration/maxSize`` bytes of entry files. The entry just written is never one of them (it
    /// is the most recently used, and no larger than the size limit) unless the count limit is 0.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when a file operation fails; eviction stops there.
    func evictOverLimits(from storage: inout JSONFileStorage, now: Date) throws {
        let maxCount = configuration.countLimit ?? .max
        let maxSize = configuration.maxSize ?? .max
        while storage.count > maxCount || storage.totalSize > maxSize, let victim = storage.leastRecentlyUsedKey() {
            try evict(victim, reason: storage.count > maxCount ? .countLimit : .sizeLimit, from: &storage, now: now)
        }
    }

    /// ``evictOverLimits(from:now:)`` after a write, or as the store opens: a failure is a report for the diagnostics
    /// closure (``Strata/StrataError/failedEviction(by:_:)``), not an error, because the value written is stored all
    /// the same; the store is over its limits until a later write's eviction succeeds.
    func evictOverLimitsOrReport(from storage: inout JSONFileStorage, now: Date) {
        do {
            try evictOverLimits(from: &storage, now: now)
        } catch {
            storage.pendingReports.append(StrataError.failedEviction(by: "JSONFileDataSource", error))
        }
    }

    /// Removes the entry under `key` and reports it to the eviction observer when it was there.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when a file operation fails; nothing is reported then.
    func evict(_ key: String, reason: StoreEviction.Reason, from storage: inout JSONFileStorage, now: Date) throws {
        guard try storage.remove(key, now: now), let observer = configuration.evictionObserver else { return }
        observer.storeDidEvict(
            StoreEviction(reason: reason, key: key, usage: StoreUsage(count: storage.count, bytes: storage.totalSize))
        )
    }

    /// Reports a purge of `count` entries, leaving `remaining` (of `bytes`), to the eviction observer, if any went.
    func reportPurge(of count: Int, remaining: Int, bytes: Int) {
        guard count > 0, let observer = configuration.evictionObserver else { return }
        observer.storeDidEvict(
            StoreEviction(reason: .purged, key: nil, count: count, usage: StoreUsage(count: remaining, bytes: bytes))
        )
    }
}
