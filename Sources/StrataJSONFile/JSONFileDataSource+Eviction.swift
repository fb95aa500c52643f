import Foundation
import Strata
import StrataStorage

extension JSONFileDataSource {
    /// Evicts the least recently used entries while the store holds more than ``Configuration/countLimit`` entries,
    /// more than ``Configuration/maxSize`` bytes of entry files or more than ``Configuration/maximumMetadataSize`` of
    /// keys and metadata. The entry just written is never one of them (it
    /// is the most recently used, and no larger than the size limit) unless the count limit is 0. The entries
    /// that cannot be removed are passed over by the rule of ``StrataStorage/StuckEvictions``.
    ///
    /// - Throws: ``Strata/StrataError/Code/io``, the first removal that failed.
    func evictOverLimits(from storage: inout JSONFileStorage, now: Date) throws {
        let failure = StuckEvictions.pass(
            &storage,
            newest: storage.mostRecentlyUsedKey(),
            isOverLimits: { isOverLimits($0) },
            leastRecentlyUsed: { $0.leastRecentlyUsedKey() },
            evict: { key, storage in
                let reason: StoreEviction.Reason =
                    storage.count > (configuration.countLimit ?? .max) ? .countLimit : .sizeLimit
                try evict(key, reason: reason, from: &storage, now: now)
            },
            // A touch that fails leaves it first; the bound still ends the pass.
            moveToBack: { key, storage in try? storage.touch(key, now: now) }
        )
        if let failure { throw failure }
    }

    /// Whether the store holds more entries, more bytes of entry files or more of keys and metadata than its limits
    /// allow.
    func isOverLimits(_ storage: borrowing JSONFileStorage) -> Bool {
        storage.count > (configuration.countLimit ?? .max) || storage.totalSize > (configuration.maxSize ?? .max)
            || storage.metadataSize > configuration.maximumMetadataSize
    }

    /// ``evictOverLimits(from:now:)`` after a write, or as the store opens: a failure is a report for the diagnostics
    /// closure (``Strata/StrataError/failedEviction(by:_:overLimits:)``), not an error, because the value written is
    /// stored all the same.
    func evictOverLimitsOrReport(from storage: inout JSONFileStorage, now: Date) {
        do {
            try evictOverLimits(from: &storage, now: now)
        } catch {
            let report = StrataError.failedEviction(by: "JSONFileDataSource", error, overLimits: isOverLimits(storage))
            storage.pendingReports.append(report)
        }
    }

    /// Removes the entry under `key`, forgets the stored list answer (it no longer holds every entry it listed) and
    /// reports the entry to the eviction observer when it was there.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when a file operation fails; nothing is reported then.
    func evict(_ key: String, reason: StoreEviction.Reason, from storage: inout JSONFileStorage, now: Date) throws {
        guard try storage.remove(key, now: now) else { return }
        storedListAnswer.forget()
        guard let observer = configuration.evictionObserver else { return }
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
