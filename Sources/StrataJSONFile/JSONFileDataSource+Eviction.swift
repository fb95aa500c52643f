import Foundation
import Strata

extension JSONFileDataSource {
    /// Removes the entry under `key` and reports it to the eviction observer when it was there.
    ///
    /// - Throws: ``Strata/StrataError/Code/io`` when a file operation fails; nothing is reported then.
    func evict(_ key: String, reason: StoreEviction.Reason, from storage: inout JSONFileStorage, now: Date) throws {
        guard try storage.remove(key, now: now), let observer = configuration.evictionObserver else { return }
        observer.storeDidEvict(
            StoreEviction(reason: reason, key: key, usage: StoreUsage(count: storage.count, bytes: nil))
        )
    }

    /// Reports a purge of `count` entries, `remaining` left, to the eviction observer, if any went.
    func reportPurge(of count: Int, remaining: Int) {
        guard count > 0, let observer = configuration.evictionObserver else { return }
        observer.storeDidEvict(
            StoreEviction(reason: .purged, key: nil, count: count, usage: StoreUsage(count: remaining, bytes: nil))
        )
    }
}
